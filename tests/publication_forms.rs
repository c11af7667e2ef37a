//! The write-up in the forms auditors receive it (contract section 9, the
//! forms): the Markdown source, and the text a reader copies out of the
//! rendered page (tables as tab-separated lines, no delimiter row, a block
//! a line, headings ending in ¶). The same write-up in both forms gives the
//! same checks, outcomes and verdict; a forged value in the copy fails as
//! it does in the Markdown; the pins read from both are the same.

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::collections::BTreeSet;

use publication_support::*;
use serde_json::Value;

/// The text a browser copies from the rendered write-up: every pipe table
/// as tab-separated lines without its delimiter row.
fn text_copy(markdown: &str) -> String {
    let mut out = Vec::new();
    for l in markdown.lines() {
        let t = l.trim();
        if t.starts_with('|')
            && t.trim_matches(|c| c == '|' || c == '-' || c == ':' || c == ' ')
                .is_empty()
        {
            continue; // the delimiter row: a browser copies none
        }
        if t.starts_with('|') && t.ends_with('|') {
            let cells: Vec<&str> = t[1..t.len() - 1].split('|').map(str::trim).collect();
            out.push(cells.join("\t"));
        } else {
            out.push(l.to_string());
        }
    }
    out.join("\n") + "\n"
}

/// Each check as (what it is about, outcome, reason): a statement by its
/// text (its id holds its line, which the copy moves), any other by id.
fn outcomes(o: &Outcome) -> BTreeSet<String> {
    o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap();
            let about = if id.starts_with("publication:statement:") {
                format!("statement {}", c["source"]["text"])
            } else {
                id.to_string()
            };
            format!("{about} {} {}", c["ok"], c["reason"])
        })
        .collect()
}

fn verdict(o: &Outcome) -> String {
    let v = o.report["verdict"].as_str().unwrap();
    // Statement ids hold lines, which the copy moves.
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("statement:") {
        out.push_str(&rest[..i + "statement:".len()]);
        rest = rest[i + "statement:".len()..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        out.push('N');
    }
    out + rest
}

#[test]
fn the_text_copy_verifies_exactly_as_the_markdown() {
    let p = published();
    let md = p.verify(&[os("--require-all")]);
    md.assert_ok();
    assert_eq!(md.report["context"]["publication_form"], "gfm");
    std::fs::write(&p.path, text_copy(&p.text())).unwrap();
    let text = p.verify(&[os("--require-all")]);
    text.assert_ok();
    assert_eq!(text.report["context"]["publication_form"], "text");
    assert_eq!(outcomes(&md), outcomes(&text));
    assert_eq!(verdict(&md), verdict(&text));
    assert!(
        verdict(&text).contains("every row, cell and statement mapped to evidence"),
        "{}",
        verdict(&text)
    );
}

#[test]
fn a_forged_cell_in_the_text_copy_fails_as_in_the_markdown() {
    let p = published();
    p.edit("| 55.4 tokens/s |", "| 107.0 tokens/s |");
    let md = p.verify(&[]);
    md.assert_fails(
        "publication:point:0.5.output_throughput",
        "does not round to published 107.0",
    );
    std::fs::write(&p.path, text_copy(&p.text())).unwrap();
    let text = p.verify(&[]);
    text.assert_fails(
        "publication:point:0.5.output_throughput",
        "does not round to published 107.0",
    );
    assert_eq!(outcomes(&md), outcomes(&text));
}

/// The pins `pins from-publication` reads from a write-up.
fn pins(path: &std::path::Path) -> Value {
    let (code, out, err) = proofpack(&[os("pins"), os("from-publication"), path.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn pins_from_the_text_copy_are_the_markdowns() {
    let p = published();
    let from_md = pins(&p.path);
    let copy = p.c.dir.path().join("copy.txt");
    std::fs::write(&copy, text_copy(&p.text())).unwrap();
    assert_eq!(pins(&copy), from_md);
}

#[test]
fn a_page_that_hides_text_or_a_mixed_document_is_refused_naming_why() {
    let p = published();
    let honest = p.text();
    // A page whose text a reader would not all see: refused, naming how.
    let page = docs_site_page(&p);
    let html = std::fs::read_to_string(&page).unwrap();
    for (forged, want) in [
        (
            html.replacen(
                "<p>",
                "<p style=\"display:none\">400/400 within limits.</p><p>",
                1,
            ),
            "a <p> with a style attribute",
        ),
        (
            html.replacen("<p>", "<p hidden>400/400 within limits.</p><p>", 1),
            "a <p> with a hidden attribute",
        ),
        (
            html.replacen("<body>", "<body><!-- 400/400 within limits -->", 1),
            "an HTML comment",
        ),
        (
            html.replacen(
                "<p>",
                "<details><p>400/400 within limits.</p></details><p>",
                1,
            ),
            "a <details> element",
        ),
    ] {
        std::fs::write(&p.path, &forged).unwrap();
        let e = p.refused();
        assert!(
            e.contains(want) && e.contains("(read as a rendered page's HTML)"),
            "{e}"
        );
    }
    // Tab rows and a Markdown table in one document: no form fits.
    std::fs::write(
        &p.path,
        format!("{honest}\nGate\tOutcome\nhealth\tpassed\n"),
    )
    .unwrap();
    let e = p.refused();
    assert!(
        e.contains("is a tab-separated table row") && e.contains("delimiter row"),
        "{e}"
    );
    // Told the form, the same document is read as it says.
    let o = p.verify(&[os("--publication-format"), os("gfm")]);
    assert_eq!(o.report["context"]["publication_form"], "gfm");
}

/// The pins `pins from-publication` writes are the pins `verify --pins`
/// reads: on the sample, every one passes (the source commits by the plan's
/// revisions, the workload, fleet and profile store by the files the
/// evidence chain names), and a forged one fails.
#[test]
fn pins_from_the_write_up_verify_with_pins() {
    let p = published();
    let pins = p.c.dir.path().join("pins.json");
    let (code, _, err) = proofpack(&[
        os("pins"),
        os("from-publication"),
        p.path.as_os_str(),
        os("-o"),
        pins.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let trust = p.c.trust();
    let with_pins = |pins: &std::path::Path| {
        verify_with(
            &p.c.bundle_path(),
            &[
                os("--pins"),
                pins.as_os_str(),
                os("--trust"),
                trust.as_os_str(),
            ],
        )
    };
    let o = with_pins(&pins);
    o.assert_ok();
    for name in [
        "narwhal-router-source",
        "benchmark-client-source",
        "profile-store",
        "qualified-fleet",
        "workload",
    ] {
        assert_eq!(o.check(&format!("pin:{name}"))["ok"], true, "{name}");
    }
    let honest: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    let forged = |name: &str, key: &str, value: &str| {
        let mut v = honest.clone();
        for pin in v["pins"].as_array_mut().unwrap() {
            if pin["name"] == name {
                pin[key] = Value::String(value.into());
            }
        }
        std::fs::write(&pins, serde_json::to_vec(&v).unwrap()).unwrap();
        with_pins(&pins)
    };
    forged("profile-store", "sha256", &"0".repeat(64))
        .assert_fails("pin:profile-store", "content differs from the pin");
    forged("narwhal-router-source", "value", &"4".repeat(40))
        .assert_fails("pin:narwhal-router-source", "the pin says 4444");
}

/// The sample's write-up as a docs site serves it: its headings Markdown
/// headings, rendered to HTML by cmark-gfm (GitHub's renderer, as the
/// pinned cmarkgfm bundles it), each heading given its ¶ anchor.
fn docs_site_page(p: &Pub) -> std::path::PathBuf {
    let page = p.c.dir.path().join("page.html");
    let render = r###"
import re, sys, cmarkgfm
src = open(sys.argv[1]).read()
md = re.sub(r"^(\S[^|\n]*?)\s*\u00b6[ \t]*$", r"## \1", src, flags=re.M)
html = cmarkgfm.github_flavored_markdown_to_html(md)
html = re.sub(r"</h2>", '<a class="headerlink" href="#">\u00b6</a></h2>', html)
open(sys.argv[2], "w").write("<!DOCTYPE html><meta charset=utf-8><body>" + html)
"###;
    qualify_support::common::output_ok(
        std::process::Command::new(qualify_support::common::python())
            .args(["-c", render])
            .arg(&p.path)
            .arg(&page),
    );
    page
}

/// The text headless Chromium copies out of a page (its body's innerText).
fn chromium_copy(page: &std::path::Path) -> String {
    chromium_text(page, false)
}

/// The page's text as Chromium lays it out, with `markers` each ordered
/// item's number before its text, as a reader sees it (innerText leaves
/// CSS list markers out).
fn chromium_text(page: &std::path::Path, markers: bool) -> String {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/copy_text.js");
    let out = qualify_support::common::output_ok(
        std::process::Command::new("node")
            .arg(script)
            .arg(page)
            .args(markers.then_some("--markers"))
            .env("NODE_PATH", qualify_support::common::node_modules()),
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The sample's page as a docs site serves it, and the text headless
/// Chromium copies out of it (tables tab-separated, the headings' ¶ kept),
/// each verify exactly as the Markdown does (same checks, outcomes and
/// verdict, with --require-all) and give the same pins.
#[test]
fn the_rendered_page_and_its_chromium_copy_verify_as_the_markdown() {
    let p = published();
    let md = p.verify(&[os("--require-all")]);
    md.assert_ok();
    let from_md = pins(&p.path);
    let page = docs_site_page(&p);
    let copy = chromium_copy(&page);
    let html = std::fs::read_to_string(&page).unwrap();
    for (form, text) in [("html", html.as_str()), ("text", copy.as_str())] {
        std::fs::write(&p.path, text).unwrap();
        let o = p.verify(&[os("--require-all")]);
        o.assert_ok();
        assert_eq!(o.report["context"]["publication_form"], form);
        assert_eq!(outcomes(&md), outcomes(&o), "{form}: {text}");
        assert_eq!(verdict(&md), verdict(&o), "{form}");
        assert_eq!(pins(&p.path), from_md, "{form}");
    }
}

/// Differential: proofpack's reading of the page's HTML (an HTML5 parser,
/// then the text a reader copies) is the text Chromium copies out of the
/// same page, line for line (blank lines aside).
#[test]
fn the_pages_text_as_proofpack_reads_it_is_chromiums() {
    let p = published();
    let page = docs_site_page(&p);
    let ours = proofpack::publication::html_page::to_text(&std::fs::read_to_string(&page).unwrap())
        .unwrap();
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.trim().is_empty())
            .collect()
    };
    assert_eq!(lines(&ours), lines(&chromium_text(&page, true)));
}

/// A forged cell in the page's HTML fails as it does in the Markdown.
#[test]
fn a_forged_cell_in_the_page_fails_as_in_the_markdown() {
    let p = published();
    let page = docs_site_page(&p);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<td>55.4 tokens/s</td>"));
    std::fs::write(
        &p.path,
        html.replacen("<td>55.4 tokens/s</td>", "<td>107.0 tokens/s</td>", 1),
    )
    .unwrap();
    p.verify(&[]).assert_fails(
        "publication:point:0.5.output_throughput",
        "does not round to published 107.0",
    );
}

/// The same differential on a page of the shapes the sample lacks: a
/// table caption, an ordered list from 200 (its numbers as a reader sees
/// them, which the clipboard's innerText leaves out), text split by inline
/// marks and links, a non-breaking space, a line break, a quote and a code
/// block.
#[test]
fn shapes_the_sample_lacks_read_as_chromium_copies_them() {
    let d = tempfile::tempdir().unwrap();
    let page = d.path().join("shapes.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><meta charset=utf-8><body>\
         <h2>Results<a class=\"headerlink\" href=\"#r\">\u{b6}</a></h2>\
         <p>Both <em>points</em> com<strong>pleted</strong>\u{a0}397/400, see <a href=\"#x\">the table</a>.<br>Second line.</p>\
         <table><caption>All points</caption><thead><tr><th>Rate</th><th>Result</th></tr></thead>\
         <tbody><tr><td>0.5</td><td><code>200/200</code> within limits</td></tr></tbody></table>\
         <ol start=\"200\"><li>higher-rate point</li><li><p>next</p></li></ol>\
         <blockquote><p>Quoted claim.</p></blockquote><pre><code>line one\nline two\n</code></pre>\
         </body>",
    )
    .unwrap();
    let ours = proofpack::publication::html_page::to_text(&std::fs::read_to_string(&page).unwrap())
        .unwrap();
    let lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim().replace('\u{a0}', " "))
            .filter(|l| !l.is_empty())
            .collect()
    };
    assert_eq!(lines(&ours), lines(&chromium_text(&page, true)));
}
