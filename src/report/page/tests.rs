//! The page data written as the report has always written it and read
//! back into the same types.

use super::*;
use serde_json::json;

/// A part written as the report writes it: every object's members in
/// the order of their names (what a `serde_json::Value` holds them in).
fn written_in_name_order<T: Serialize>(part: &T) {
    let written = serde_json::to_string(part).unwrap();
    let sorted = serde_json::to_string(&serde_json::to_value(part).unwrap()).unwrap();
    assert_eq!(written, sorted);
}

fn context() -> Context {
    Context {
        bundle_sha256: Some("ab".into()),
        manifest_sha256: None,
        model: Some("m".into()),
        pinned: true,
        pins: None,
        publication: Some("W.md".into()),
        publication_form: Some("text".into()),
        run: Some("r".into()),
        seal: Some(Seal {
            detail: "signed".into(),
            ok: None,
        }),
        structure_only: false,
        target: "b.tgz".into(),
        tool: "proofpack 0".into(),
        trust: Some("trust.json".into()),
        trust_sha256: Some("cd".into()),
        verified_at: "2026-01-01T00:00:00Z".into(),
    }
}

#[test]
fn the_context_is_written_in_name_order_and_read_back() {
    let c = context();
    written_in_name_order(&c);
    let report = json!({"context": c});
    assert_eq!(Page::read(&report).unwrap().context, Some(c));
}

#[test]
fn the_table_is_written_in_name_order_and_read_back() {
    let t = Table {
        headers: vec!["Offered rate (req/s)".into(), "Result".into()],
        rows: vec![vec!["0.5".into(), "200/200 within limits".into()]],
    };
    written_in_name_order(&t);
    let report = json!({"table": t});
    assert_eq!(Page::read(&report).unwrap().table, Some(t));
    let page = Page::read(&json!({"table": {"rows": []}})).unwrap();
    assert_eq!(page.table, Some(Table::default()));
}

fn plot() -> Plot {
    let metric = Metric {
        cdf: Cdf {
            n: 3,
            points: vec![CdfPoint(0.25, 0.5), CdfPoint(0.5, 1.0)],
            shown: 2,
        },
        marks: Marks {
            p50: Some(0.25),
            p95: None,
            p99: Some(0.5),
        },
    };
    Plot {
        point: "p1".into(),
        slo: Some(Slo {
            tpot_ms: 300.0,
            ttft_s: 10.0,
        }),
        timeline: Timeline {
            n: 3,
            points: vec![
                TimelinePoint(0.0, Some(1.5), "ok".into()),
                TimelinePoint(2.0, None, "timeout".into()),
            ],
            shown: 2,
            stride: 1,
            t0: Some(1.0e9),
        },
        tpot_ms: metric.clone(),
        ttft_s: metric,
    }
}

#[test]
fn the_plots_are_written_in_name_order_and_read_back() {
    let p = plot();
    written_in_name_order(&p);
    let report = json!({"plots": [p]});
    assert_eq!(Page::read(&report).unwrap().plots, Some(vec![plot()]));
}

/// A number that is not finite is written as null and read back as
/// NaN; a point without a name reads as `?`, a plot without budgets
/// has NaN ones.
#[test]
fn a_null_number_reads_as_nan() {
    let mut p = plot();
    p.timeline.points[0].0 = f64::INFINITY;
    p.ttft_s.cdf.points[1].1 = f64::NAN;
    p.slo = Some(Slo {
        tpot_ms: f64::NAN,
        ttft_s: 10.0,
    });
    let written = serde_json::to_value(&p).unwrap();
    assert_eq!(written["timeline"]["points"][0], json!([null, 1.5, "ok"]));
    assert_eq!(written["slo"], json!({"tpot_ms": null, "ttft_s": 10.0}));
    let read = &Page::read(&json!({ "plots": [written] }))
        .unwrap()
        .plots
        .unwrap()[0];
    assert!(read.timeline.points[0].0.is_nan());
    assert!(read.ttft_s.cdf.points[1].1.is_nan());
    assert!(read.slo.unwrap().tpot_ms.is_nan());
    let read = &Page::read(&json!({"plots": [{"slo": {}}]}))
        .unwrap()
        .plots
        .unwrap()[0];
    assert_eq!(read.point, "?");
    assert!(read.slo.unwrap().ttft_s.is_nan());
    assert_eq!(read.ttft_s, Metric::default());
}

fn marked(text: &str, ok: Option<bool>, found: Vec<Value>) -> Segment {
    Segment::Marked(Mark {
        checks: vec!["publication:statement:3.1".into()],
        found,
        ok,
        publisher: false,
        text: text.into(),
        parts: Vec::new(),
    })
}

fn plain(text: &str) -> Segment {
    Segment::Plain(Text { text: text.into() })
}

/// Every kind of block, a table read and one not read, marks that held,
/// failed (with what the evidence gives) and were not checked.
fn published() -> Published {
    let blocks = vec![
        Block::Heading {
            level: 2,
            line: 1,
            segments: vec![plain("Title")],
        },
        Block::Paragraph {
            item: true,
            line: 3,
            quote: false,
            segments: vec![
                marked("It held.", Some(true), vec![]),
                plain(" "),
                marked("It did not.", Some(false), vec![json!({"max": 5.1})]),
                marked("Not checked.", None, vec![]),
            ],
        },
        Block::Code {
            line: 5,
            segments: vec![plain("code\n")],
        },
        Block::Rule {
            line: 8,
            segments: vec![],
        },
        Block::Table {
            checks: None,
            header: vec![Text {
                text: "Input".into(),
            }],
            line: 10,
            ok: None,
            rows: vec![vec![plain("Model"), marked("m", Some(true), vec![])]],
        },
        Block::Table {
            checks: Some(vec!["publication:table:14".into()]),
            header: vec![],
            line: 14,
            ok: None,
            rows: vec![],
        },
    ];
    Published {
        rows: Some(vec![PublishedRow {
            checks: vec![
                RowCheck {
                    id: "publication:pin:model".into(),
                    ok: Some(true),
                    source: None,
                },
                RowCheck {
                    id: "publication:pin:model.stated".into(),
                    ok: None,
                    source: Some("publisher".into()),
                },
            ],
            label: "Model".into(),
            line: Some(11),
            value: "m".into(),
        }]),
        source: "WRITEUP.md".into(),
        writeup: Some(blocks),
    }
}

#[test]
fn the_published_inputs_are_written_in_name_order_and_read_back() {
    let p = published();
    written_in_name_order(&p);
    let written = serde_json::to_value(&p).unwrap();
    let blocks = &written["writeup"];
    // The members each kind has always had: `ok` beside `checks` only,
    // null when not checked; a plain piece of text is `{"text"}` alone.
    assert_eq!(
        blocks[5],
        json!({"checks": ["publication:table:14"], "header": [], "kind": "table", "line": 14, "ok": null, "rows": []})
    );
    assert!(blocks[4].get("checks").is_none() && blocks[4].get("ok").is_none());
    assert_eq!(blocks[1]["segments"][1], json!({"text": " "}));
    assert_eq!(
        blocks[1]["segments"][3],
        json!({"checks": ["publication:statement:3.1"], "found": [], "ok": null, "text": "Not checked."})
    );
    assert_eq!(
        Page::read(&json!({ "published": written }))
            .unwrap()
            .published,
        Some(published())
    );
    // With pins: no write-up.
    let pins = Published {
        writeup: None,
        source: "pins".into(),
        ..published()
    };
    assert!(serde_json::to_value(&pins)
        .unwrap()
        .get("writeup")
        .is_none());
}

/// A block of a kind this reader does not know is kept (the page numbers
/// blocks by their place) but never written; a block without a kind, or
/// a segment that is not an object, is refused.
#[test]
fn blocks_of_unknown_kinds_are_kept_and_malformed_ones_refused() {
    let report = json!({"published": {"rows": [], "source": "W.md", "writeup": [
        {"kind": "math", "line": 2, "tex": "x"},
        {"kind": "h"},
        {"kind": "p", "segments": [{"text": "a", "checks": "not a list"}]},
    ]}});
    let p = Page::read(&report).unwrap().published.unwrap();
    assert_eq!(
        p.writeup.unwrap(),
        [
            Block::Unknown,
            Block::Heading {
                level: 1,
                line: 0,
                segments: vec![]
            },
            Block::Paragraph {
                item: false,
                line: 0,
                quote: false,
                segments: vec![plain("a")]
            },
        ]
    );
    assert!(serde_json::to_string(&Block::Unknown).is_err());
    let e = Page::read(&json!({"published": {"writeup": [{"line": 1}]}})).unwrap_err();
    assert_eq!(e.part, "published");
    let e = Page::read(&json!({"published": {"writeup": [{"kind": "p", "segments": [1]}]}}));
    assert!(e.is_err());
    // Without rows (no proofpack writes that), there are none to draw.
    let p = Page::read(&json!({"published": {"source": "W.md"}})).unwrap();
    assert_eq!(p.published.unwrap().rows, None);
}

/// A report without page data (an older one) has no parts; a part
/// without a member reads it as its default; a member the reader does
/// not know is ignored; a member of another type is refused, naming
/// the part.
#[test]
fn absent_parts_and_members_read_as_before() {
    assert_eq!(Page::read(&json!({"checks": []})).unwrap(), Page::default());
    assert_eq!(
        Page::read(&json!({"context": null})).unwrap(),
        Page::default()
    );
    let page = Page::read(&json!({"context": {"seal": {}, "future": 1}})).unwrap();
    assert_eq!(
        page.context,
        Some(Context {
            seal: Some(Seal::default()),
            ..Context::default()
        })
    );
    let e = Page::read(&json!({"context": {"run": 5}})).unwrap_err();
    assert_eq!(e.part, "context");
    assert!(e.to_string().starts_with("context: invalid type"), "{e}");
}
