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

use serde_json::Value;

use super::text::{esc, show};

/// Styles of the write-up section.
pub const STYLE: &str = r#"
.writeup { border: 1px solid var(--line, #ccc); padding: .5rem 1rem; }
.writeup p.item::before { content: "• "; }
.writeup p.quote { border-left: 3px solid #bbb; padding-left: .6rem; }
.writeup .claim { border-bottom: 2px solid; padding: 0 .1rem; }
.writeup .claim.pass { background: #e6f4ea; border-color: #1e7e34; }
.writeup .claim.fail { background: #fdecea; border-color: #b00020; }
.writeup .claim.skip { background: #eee; border-color: #888; }
.writeup .claim.fail[data-found]::after { content: " ⟵ evidence: " attr(data-found); color: #b00020; font-size: .85em; }
.writeup table.claim-table .skip { background: #eee; }
"#;

fn class(ok: &Value) -> &'static str {
    match ok {
        Value::Bool(true) => "pass",
        Value::Bool(false) => "fail",
        _ => "skip",
    }
}

fn segment(out: &mut String, seg: &Value, statement: bool) {
    let text = seg["text"].as_str().unwrap_or("");
    let Some(ids) = seg["checks"].as_array() else {
        out.push_str(&esc(text));
        return;
    };
    let ids: Vec<&str> = ids.iter().filter_map(Value::as_str).collect();
    let cls = class(&seg["ok"]);
    let found: Vec<String> = seg["found"]
        .as_array()
        .map(|f| f.iter().map(show).collect())
        .unwrap_or_default();
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
                "fail" => "did not hold",
                _ => "not checked",
            }
        )),
        esc(text)
    );
}

/// Appends the write-up section, when the report carries one.
pub fn writeup(out: &mut String, report: &Value) {
    let p = &report["published"];
    let Some(blocks) = p["writeup"].as_array() else {
        return;
    };
    let _ = writeln!(
        out,
        "<style>{STYLE}</style><section id=\"writeup\"><h2>The write-up as published</h2><p class=\"note\">{}, as GitHub renders it. Every statement and value proofpack checks is marked: green held, red did not (the value the evidence gives beside it), grey not checked; hover for the check's id, listed under “Every check”.</p><div class=\"writeup\">",
        esc(&show(&p["source"]))
    );
    for (i, b) in blocks.iter().enumerate() {
        let segs = |out: &mut String| {
            for s in b["segments"].as_array().into_iter().flatten() {
                segment(out, s, true);
            }
        };
        match b["kind"].as_str().unwrap_or("") {
            "h" => {
                let l = (b["level"].as_u64().unwrap_or(1) + 2).min(6);
                let _ = write!(out, "<h{l} data-block=\"{i}\">");
                segs(out);
                let _ = writeln!(out, "</h{l}>");
            }
            "p" => {
                let mut cls = Vec::new();
                if b["item"] == true {
                    cls.push("item");
                }
                if b["quote"] == true {
                    cls.push("quote");
                }
                let _ = write!(out, "<p class=\"{}\" data-block=\"{i}\">", cls.join(" "));
                segs(out);
                out.push_str("</p>\n");
            }
            "code" => {
                let _ = write!(out, "<pre data-block=\"{i}\">");
                segs(out);
                out.push_str("</pre>\n");
            }
            "rule" => {
                let _ = writeln!(out, "<hr data-block=\"{i}\">");
            }
            "table" => {
                let unread = b["checks"].as_array().is_some();
                let _ = write!(
                    out,
                    "<table class=\"claim-table{}\" data-block=\"{i}\"{}><thead><tr>",
                    if unread { " skip" } else { "" },
                    if unread {
                        format!(
                            " data-checks=\"{}\"",
                            esc(b["checks"][0].as_str().unwrap_or(""))
                        )
                    } else {
                        String::new()
                    }
                );
                for h in b["header"].as_array().into_iter().flatten() {
                    let _ = write!(out, "<th>{}</th>", esc(h["text"].as_str().unwrap_or("")));
                }
                out.push_str("</tr></thead><tbody>");
                for r in b["rows"].as_array().into_iter().flatten() {
                    out.push_str("<tr>");
                    for c in r.as_array().into_iter().flatten() {
                        out.push_str("<td>");
                        segment(out, c, false);
                        out.push_str("</td>");
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table>\n");
            }
            _ => {}
        }
    }
    out.push_str("</div></section>\n");
}
