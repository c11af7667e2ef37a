//! The publication reader against cmark-gfm itself (GitHub's renderer, via
//! the pinned PyPI cmarkgfm, tests/gfm_view.py): every write-up and
//! Markdown page in the repository, the attacks of the reader issue, and
//! generated variants render in cmark-gfm as the blocks, tables and cells
//! proofpack sees (fuzz/harness_gfm.rs says what is normalised). An input
//! on which the two differ must be one proofpack refuses. Variants that
//! render the same text read the same; the corpus of the `publication_gfm`
//! fuzz target is replayed.

#[path = "../fuzz/harness_gfm.rs"]
mod harness_gfm;

mod common;

use std::path::{Path, PathBuf};

use harness_gfm::{compare, Oracle};
use proofpack::publication::document::Document;
use proofpack::publication::Publication;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The sample's write-up, and the same as plain Markdown headings.
fn sample() -> String {
    read(&root().join("testdata/sample/PUBLICATION.md"))
}

fn md_sample() -> String {
    let mut out = String::new();
    for l in sample().lines() {
        match l.strip_suffix('¶') {
            Some(h) => out.push_str(&format!("\n## {h}\n\n")),
            None => {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    out
}

/// The generated variants and the attacks: (name, text).
fn variants() -> Vec<(&'static str, String)> {
    let s = sample();
    let m = md_sample();
    let quote: String = m.lines().map(|l| format!("> {l}\n")).collect();
    let list: String = m
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("- {l}\n")
            } else {
                format!("  {l}\n")
            }
        })
        .collect();
    let code: String = m.lines().map(|l| format!("    {l}\n")).collect();
    let no_edge: String = m
        .lines()
        .map(
            |l| match l.strip_prefix("| ").and_then(|l| l.strip_suffix(" |")) {
                Some(inner) => format!("{inner}\n"),
                None => format!("{l}\n"),
            },
        )
        .collect();
    let rate2 = "| 2 request/s | 1.9 request/s | 200.0 tokens/s | 5.000 / 6.000 / 7.000 s | 250.0 / 251.0 / 252.0 ms | 200/200 within limits |";
    vec![
        ("markdown headings", m.clone()),
        ("escaped pipe", m.replace("| Model | moonshotai/Kimi-K3 |", "| Model | moonshotai\\|Kimi-K3 |")),
        ("pipe in a code span", m.replace("| Model | moonshotai/Kimi-K3 |", "| Model | `moonshotai|Kimi-K3` |")),
        ("escaped pipe in a code span", m.replace("| Model | moonshotai/Kimi-K3 |", "| Model | `moonshotai\\|Kimi-K3` |")),
        ("emphasis in cells", m.replace("| 5.187 /", "| *5.187* /").replace("0.433 request/s", "**0.433** request/s").replace("| Model |", "| _Model_ |")),
        ("code spans in cells", m.replace("0.433 request/s", "`0.433` request/s").replace("| Engine |", "| `Engine` |")),
        ("entity references", m.replace("5.187", "&#53;.187").replace("0.433", "0&#x2e;433").replace("request/s", "request&#47;s")),
        ("zero-width space by reference", m.replace("5.187", "5&#8203;.187")),
        ("a NUL in a number", m.replace("0.433 request/s", "0.4\u{0}33 request/s")),
        ("a NUL by reference", m.replace("0.433 request/s", "0.4&#0;33 request/s")),
        ("tables in a block quote", quote),
        ("tables in a list item", list),
        ("tables in an indented code block", code),
        ("setext headings", m.replace("## Pinned inputs", "Pinned inputs\n-------------").replace("## Measured points", "Measured points\n===")),
        ("rows without edge pipes", no_edge),
        ("a row without edge pipes after the table", m.replace("200/200 within limits |\n|", &format!("200/200 within limits |\n{}\n|", rate2.trim_matches(['|', ' '])))),
        ("a pilcrow row", m.replace("1 timed out |\n", &format!("1 timed out |\n{rate2}¶\n"))),
        ("a line right after a table", s.replace("1 timed out |\n\n", "1 timed out |\n")),
        ("lazy continuation in a quote", "> | a | b |\n> |---|---|\n| 1 | 2 |\n> | 3 | 4 |\n".into()),
        ("lazy continuation of a paragraph", "> Pinned inputs\nlazy line\n| a | b |\n|---|---|\n| 1 | 2 |\n".into()),
        ("lazy continuation in a list", "- | a | b |\n  |---|---|\n| 1 | 2 |\n  | 3 | 4 |\n".into()),
        ("hidden table in an HTML block", m.replacen("| Offered rate |", "<div hidden>\n| Offered rate |", 1) + "\n</div>\n<table><tr><td>2 request/s</td></tr></table>\n"),
        ("an HTML comment", m.replace("| Model |", "<!-- | Model | fake | -->\n| Model |")),
        ("inline HTML in a cell", m.replace("0.433 request/s", "<span hidden>9</span>0.433 request/s")),
        ("a link reference definition", format!("{m}\n[hidden]: http://example.org \"the real numbers\"\n")),
        ("a link reference definition in a quote", "> [hidden]: /x \"t\"\n> text\n".into()),
        ("footnotes", m.replace("is synthetic.", "is synthetic.[^1]") + "\n[^1]: A note.\n[^2]: unreferenced\n"),
        ("a results table under another heading", format!("{m}\n## Measured points at higher load\n\n| Offered rate | Completed rate including drain |\n|---|---|\n| 4 request/s | 3.9 request/s |\n")),
        ("reversed percentiles", m.replace("TTFT p50 / p95 / p99", "TTFT p99 / p95 / p50")),
        ("p99.9", m.replace("TTFT p50 / p95 / p99", "TTFT p50 / p95 / p99.9")),
        ("per GPU", m.replace("Output throughput including drain", "Output throughput per GPU")),
        ("a header qualifier", m.replace("TTFT p50 / p95 / p99", "TTFT p50 / p95 / p99 (cold start, first request of each session)")),
        ("8K", m.replace("8,192 input tokens", "8K input tokens")),
        ("a Cyrillic letter", m.replace("| Engine |", "| \u{415}ngine |")),
        ("0 errors", m.replace("2 failed, 1 timed out", "0 errors, 0 timeouts")),
        ("budgets with signs", m.replace("10 s TTFT, 0.3 s TPOT", "TTFT \u{2264} 0.3 s, TPOT \u{2264} 50 ms")),
        ("an engine tail", m.replace("vLLM 0.11.2+rocm7.0, image", "vLLM 0.11.2+rocm7.0 with EAGLE-3 speculative decoding, image")),
        ("strikethrough", m.replace("5.187", "~~5.187~~ 5.1")),
        ("task list", format!("{m}\n- [x] done\n- [ ] not done\n")),
        ("hard breaks", m.replace("every number in it", "every number  \nin it")),
        ("tabs in cells", m.replace("| Model | moonshotai/Kimi-K3 |", "|\tModel\t|\tmoonshotai/Kimi-K3\t|")),
        ("CRLF", m.replace('\n', "\r\n")),
        ("byte order mark", format!("\u{feff}{m}")),
        ("a table interrupting a paragraph", "intro one\nintro two\n| a | b |\n|---|---|\n| 1 | 2 |\nafter\n".into()),
        ("a delimiter row of another width", "| a | b |\n|---|\n| 1 | 2 |\n".into()),
        ("extra and missing cells", "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |\n".into()),
        ("blocks that end a table", "| a | b |\n|---|---|\n| 1 | 2 |\n# Heading\n| 3 | 4 |\n\n| a |\n|---|\n| 1 |\n```\n| 3 |\n```\n".into()),
        ("a link and an image in cells", m.replace("0.433 request/s", "[0.433](https://x.example) request/s").replace("55.4 tokens/s", "![55.4](x.png) tokens/s")),
        ("backslash escapes", m.replace("moonshotai/Kimi-K3", "moonshotai\\/Kimi\\-K3").replace("5.187", "5\\.187")),
        ("Unicode spaces", m.replace("| Model |", "|\u{2003}Model\u{2003}|").replace("8,192 input", "8,192\u{a0}input")),
    ]
}

/// The variants that render the same text as the sample and so must read
/// the same.
const SAME_TEXT: &[&str] = &[
    "markdown headings",
    "emphasis in cells",
    "code spans in cells",
    "entity references",
    "setext headings",
    "rows without edge pipes",
    "tabs in cells",
    "CRLF",
    "byte order mark",
    "backslash escapes",
    "Unicode spaces",
];

fn inputs() -> Vec<(String, String)> {
    let mut out = vec![
        ("testdata/sample/PUBLICATION.md".to_string(), sample()),
        (
            "testdata/publication/excerpt.md".to_string(),
            read(&root().join("testdata/publication/excerpt.md")),
        ),
        ("README.md".to_string(), read(&root().join("README.md"))),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain(std::iter::once(root().join("docs/spec/FORMATS.md")))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    for d in docs {
        out.push((
            d.strip_prefix(root()).unwrap().display().to_string(),
            read(&d),
        ));
    }
    for (name, text) in variants() {
        out.push((format!("variant: {name}"), text));
    }
    out
}

#[test]
fn every_listed_input_renders_as_proofpack_reads_it() {
    let mut oracle = Oracle::new(&root());
    let mut refused = 0;
    let all = inputs();
    for (name, text) in &all {
        let accepted = Document::parse(text, name).is_ok();
        refused += usize::from(!accepted);
        if let Err(e) = compare(&mut oracle, text) {
            assert!(
                !accepted,
                "{name}: read by proofpack, rendered otherwise by cmark-gfm: {e}"
            );
            eprintln!("{name}: refused by proofpack; cmark-gfm differs: {e}");
        }
    }
    assert!(all.len() > 60, "{} inputs", all.len());
    eprintln!("{} inputs, {refused} refused by proofpack", all.len());
}

#[test]
fn variants_that_render_the_same_text_read_the_same_and_others_do_not() {
    let base = Publication::parse(&sample(), "w.md").unwrap();
    for (name, text) in variants() {
        let p = Publication::parse(&text, "w.md");
        if SAME_TEXT.contains(&name) {
            let p = p.unwrap_or_else(|e| panic!("{name}: {e}"));
            // The same values, wherever they stand (a variant may shift lines).
            let values = |p: &Publication| {
                p.points
                    .iter()
                    .map(|r| {
                        (
                            r.offered.clone(),
                            r.cells
                                .iter()
                                .map(|c| (c.key(), c.value.clone()))
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(values(&p), values(&base), "{name}");
            let kinds = |p: &Publication| {
                p.pinned
                    .iter()
                    .map(|r| (r.slug.clone(), r.kind.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(kinds(&p), kinds(&base), "{name}");
        }
    }
    for refused in [
        "zero-width space by reference",
        "a NUL in a number",
        "hidden table in an HTML block",
        "a link reference definition",
        "footnotes",
        "a header qualifier",
        "8K",
        "a Cyrillic letter",
        "0 errors",
        "budgets with signs",
        "an engine tail",
        "strikethrough",
        "task list",
        "a pilcrow row",
        "a line right after a table",
    ] {
        let (_, text) = variants().into_iter().find(|(n, _)| *n == refused).unwrap();
        assert!(
            Publication::parse(&text, "w.md").is_err(),
            "{refused} was read"
        );
    }
}

#[test]
fn the_fuzz_corpus_replays() {
    let mut oracle = Oracle::new(&root());
    let mut n = 0;
    for (_, data) in common::corpus::inputs("publication_gfm") {
        harness_gfm::run(&mut oracle, &data);
        n += 1;
    }
    assert!(n >= 10, "{n} corpus inputs");
}
