//! The write-up on the HTML page (v1.1), through the binary: the page
//! shows the publication itself after the failures, every statement of its prose marked
//! once with its outcome and naming its check's row, and the text of the
//! write-up section is, block by block and cell by cell, the text
//! cmark-gfm renders for the write-up (tests/gfm_view.py, GitHub's
//! renderer): nothing of the publication is left off the page, nothing is
//! added to it.

#[path = "../fuzz/harness_gfm.rs"]
mod harness_gfm;
#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::path::Path;

use proofpack::publication::document::squash;
use proofpack::publication::markdown;
use publication_support::*;
use serde_json::Value;

/// The text of an HTML fragment this page writes: tags dropped, the five
/// entities `esc` writes decoded.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The page's write-up blocks, in order: for a table its cells' texts, for
/// any other block its text.
fn page_blocks(page: &str) -> Vec<Value> {
    let start = page
        .find("<div class=\"writeup\">")
        .expect("a write-up section");
    let end = start + page[start..].find("</div></section>").unwrap();
    let body = &page[start..end];
    let mut out = Vec::new();
    for chunk in body.split(" data-block=\"").skip(1) {
        let open = chunk.find('>').unwrap();
        let tag_end = [
            "</h3>", "</h4>", "</h5>", "</h6>", "</p>", "</pre>", "</table>",
        ]
        .iter()
        .filter_map(|t| chunk.find(t))
        .min()
        .unwrap_or(open + 1);
        let inner = &chunk[open + 1..tag_end];
        if chunk[tag_end..].starts_with("</table>") {
            let cells: Vec<Vec<String>> = inner
                .split("<tr>")
                .skip(1)
                .map(|r| {
                    let mut row = Vec::new();
                    let mut rest = r;
                    while let Some(at) = rest.find("<td>").or_else(|| rest.find("<th>")) {
                        let body = &rest[at + 4..];
                        let end = body.find("</td>").or_else(|| body.find("</th>")).unwrap();
                        row.push(squash(&text_of(&body[..end])));
                        rest = &body[end + 5..];
                    }
                    row
                })
                .collect();
            out.push(serde_json::json!(cells));
        } else {
            out.push(Value::String(squash(&text_of(inner))));
        }
    }
    out
}

#[test]
fn the_page_shows_the_write_up_as_gfm_renders_it_with_every_statement_marked_once() {
    let p = published();
    // One statement that does not hold and one no grammar reads.
    p.edit("201 terminal requests", "202 terminal requests");
    p.edit(
        "Measured points¶",
        "Every engine answered 100% of its health probes.\n\nMeasured points¶",
    );
    let html = p.c.dir.path().join("report.html");
    let o = p.verify(&[os("--html"), html.as_os_str()]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    let page = std::fs::read_to_string(&html).unwrap();
    // The write-up comes right after what was verified and the failures,
    // before everything else.
    let at = |s: &str| page.find(s).unwrap();
    assert!(
        at("<section id=\"failures\">") < at("<section id=\"writeup\">")
            && at("<section id=\"writeup\">") < at("<section id=\"published\">"),
        "the write-up follows the failures"
    );
    // Every statement check appears once on the page's write-up, with the
    // class of its outcome, and links to its row.
    for c in o.report["checks"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        if !id.starts_with("publication:statement:") {
            continue;
        }
        let attr = format!("data-statement=\"{id}\"");
        assert_eq!(page.matches(&attr).count(), 1, "{id}");
        let at = page.find(&attr).unwrap();
        let tag = &page[page[..at].rfind('<').unwrap()..at];
        let cls = match c["ok"] {
            Value::Bool(true) => "claim pass",
            Value::Bool(false) => "claim fail",
            _ => "claim skip",
        };
        assert!(tag.contains(cls), "{id}: {tag}");
        assert!(
            tag.contains(&format!("data-row=\"check-{id}\"")),
            "{id}: {tag}"
        );
        assert!(
            page.contains(&format!("id=\"check-{id}\"")),
            "{id} has no row"
        );
    }
    assert!(page.contains("data-statement=\"publication:statement:28.3\" data-found="));
    // The section's text is cmark-gfm's rendering of the write-up, in the
    // page's markup and as Chromium lays it out.
    let theirs = gfm_blocks(&p.text());
    assert!(theirs.len() >= 8, "{theirs:?}");
    assert_eq!(page_blocks(&page), theirs);
    let dom = qualify_support::common::browser("writeup_dom.js", &[html.as_os_str()]);
    assert_eq!(dom["error"], Value::Null, "{dom}");
    let shown: Vec<Value> = dom["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b {
            Value::Array(rows) => serde_json::json!(rows
                .iter()
                .map(|r| r
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| squash(c.as_str().unwrap()))
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>()),
            b => Value::String(squash(b.as_str().unwrap())),
        })
        .collect();
    assert_eq!(shown, theirs, "the write-up as Chromium shows it");
    // In the browser too: every statement once, visible, in the write-up,
    // with the class of its outcome and a link to a row that exists.
    let rows: Vec<&str> = dom["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let marked = dom["statements"].as_array().unwrap();
    let mut statements = 0;
    for c in o.report["checks"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        if !id.starts_with("publication:statement:") {
            continue;
        }
        statements += 1;
        let on_page: Vec<&Value> = marked.iter().filter(|m| m["id"] == id).collect();
        assert_eq!(on_page.len(), 1, "{id} in the browser: {on_page:?}");
        let m = on_page[0];
        let cls = match c["ok"] {
            Value::Bool(true) => "claim pass",
            Value::Bool(false) => "claim fail",
            _ => "claim skip",
        };
        assert!(m["cls"].as_str().unwrap().contains(cls), "{id}: {m}");
        assert_eq!(m["visible"], true, "{id}: {m}");
        assert_eq!(m["in_writeup"], true, "{id}: {m}");
        let row = format!("check-{id}");
        assert_eq!(m["row"], row.as_str(), "{id}: {m}");
        assert!(
            rows.contains(&row.as_str()),
            "{id} has no row in the browser"
        );
    }
    assert_eq!(marked.len(), statements, "marked on the page: {marked:?}");
    assert!(statements >= 8, "{statements} statements");
}

/// The blocks of the write-up as cmark-gfm renders them (tests/gfm_view.py):
/// a table as its cells' texts, any other block as its text, whitespace
/// squashed.
fn gfm_blocks(text: &str) -> Vec<Value> {
    let (md, _) = markdown::prepass(text);
    let mut oracle = harness_gfm::Oracle::new(Path::new(env!("CARGO_MANIFEST_DIR")));
    let theirs = oracle.view(md.as_bytes());
    theirs
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b["t"].as_str().unwrap() {
            "table" => serde_json::json!(b["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| squash(c.as_str().unwrap()))
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>()),
            "code_block" => Value::String(squash(b["text"].as_str().unwrap())),
            _ => Value::String(squash(b["text"].as_str().unwrap_or(""))),
        })
        .collect()
}

/// A failed cell of three numbers says which one failed and what each
/// value beside it is (recomputed, or the bundle's claim); a failed
/// sentence's evidence reads as words, not raw JSON.
#[test]
fn a_failed_cell_labels_each_evidence_value() {
    let p = published();
    p.edit("5.187 / 6.569 / 7.179 s", "5.187 / 6.596 / 7.179 s");
    p.edit(
        "ranged from 0.401 to 5.102 s",
        "ranged from 0.401 to 5.201 s",
    );
    let html = p.c.dir.path().join("report.html");
    let o = p.verify(&[os("--html"), html.as_os_str()]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    let page = std::fs::read_to_string(&html).unwrap();
    let found: Vec<&str> = page
        .split("data-found=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert!(
        found
            .iter()
            .any(|f| f.contains("TTFT p95, recomputed: 6.5686")
                && f.contains("TTFT p95, the bundle&#39;s claim: 6.569")),
        "{found:?}"
    );
    assert!(found.contains(&"max 5.102, min 0.401"), "{found:?}");
    assert!(!found.iter().any(|f| f.contains("{")), "{found:?}");
    // Number by number: the failed p95 is red, the p50 and p99 beside it
    // green, each naming its own check.
    let span_of = |number: &str| {
        let end = page.find(&format!(">{number}</span>")).unwrap();
        page[page[..end].rfind("<span").unwrap()..end].to_string()
    };
    let p95 = span_of("6.596");
    assert!(
        p95.contains("claim fail") && p95.contains("ttft_s.p95"),
        "{p95}"
    );
    let p50 = span_of("5.187");
    assert!(
        p50.contains("claim pass") && p50.contains("ttft_s.p50"),
        "{p50}"
    );
    assert!(!p50.contains("ttft_s.p95"), "{p50}");
}
