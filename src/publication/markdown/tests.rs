use super::*;

fn kinds(t: &Tree) -> Vec<BlockKind> {
    t.blocks.iter().map(|b| b.kind).collect()
}

#[test]
fn prepass_turns_exactly_the_pilcrow_heading_lines_into_headings() {
    let text = "Title¶\n| a | b |¶\nx | y¶\n  indented¶\n> quote¶\nPinned inputs ¶\r\n¶\nplain\n";
    let (md, changed) = prepass(text);
    assert_eq!(changed, [1, 6]);
    assert_eq!(
        md,
        "## Title\n| a | b |¶\nx | y¶\n  indented¶\n> quote¶\n## Pinned inputs\r\n¶\nplain\n"
    );
    let (same, none) = prepass("no headings\n");
    assert!(matches!(same, Cow::Borrowed(_)) && none.is_empty());
}

#[test]
fn a_line_right_after_a_table_is_one_more_row_as_in_gfm() {
    let t =
        parse("Intro.\n| a | b |\n|---|---|\n| 1 | 2 |\nThe bundle is x.\n| 3 | 4 |¶\n").unwrap();
    assert_eq!(kinds(&t), [BlockKind::Paragraph, BlockKind::Table]);
    let rows: Vec<(usize, Vec<&str>, usize)> = t.blocks[1]
        .rows
        .iter()
        .map(|r| {
            (
                r.line,
                r.cells.iter().map(|c| c.text.as_str()).collect(),
                r.written,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (2, vec!["a", "b"], 2),
            (4, vec!["1", "2"], 2),
            (5, vec!["The bundle is x.", ""], 1),
            (6, vec!["3", "4"], 3)
        ]
    );
    assert!(t.findings.is_empty(), "{:?}", t.findings);
}

#[test]
fn what_hides_content_is_found_with_its_line_and_column() {
    let cases = [
        ("<div hidden>\n| a |\n|---|\n", 1, "HTML block"),
        ("text <!-- c --> more\n", 1, "inline HTML"),
        (
            "a\n\n[x]: http://example.org \"t\"\n",
            3,
            "renders as nothing",
        ),
        ("[x]: /u\nvisible\n", 1, "link reference definition"),
        ("> [x]: /u\n> text\n", 1, "link reference definition"),
        ("a ~~b~~ c\n", 1, "struck-through"),
        ("![5.187](x.png)\n", 1, "an image"),
        ("- [x] done\n", 1, "task-list"),
        ("x[^1]\n\n[^1]: note\n", 1, "footnote reference"),
        ("text\n\n[^2]: unreferenced\n", 3, "renders as nothing"),
    ];
    for (text, line, what) in cases {
        let t = parse(text).unwrap();
        let f = t
            .findings
            .first()
            .unwrap_or_else(|| panic!("{text:?}: nothing found"));
        assert_eq!(f.line, line, "{text:?}: {f:?}");
        assert!(f.what.contains(what), "{text:?}: {f:?}");
    }
}

#[test]
fn honest_markdown_has_no_findings() {
    let text = "# T\n\nSetext\n---\n\nPara *em* `c` [link](http://x) www.x.com\n\n> quote\n>\n> more\n\n- a\n-\n  b\n1. c\n\n    code\n\n```\nfenced\n```\n\n***\n\n| a | b |\n|---|---|\n| `x\\|y` | **z** |\n";
    let t = parse(text).unwrap();
    assert!(t.findings.is_empty(), "{:?}", t.findings);
}

#[test]
fn cells_as_gfm_splits_them() {
    for (line, n) in [
        ("| a | b |", 2),
        ("a | b", 2),
        ("| a | b |¶", 3),
        ("| a \\| b |", 1),
        ("| `a|b` |", 2),
        ("|  |  |", 2),
        ("| a |   ", 1),
        ("||", 1),
    ] {
        assert_eq!(cells_written(line), n, "{line}");
    }
}

#[test]
fn too_many_nodes_is_an_error_not_memory() {
    let mut s = String::from("|a|b|\n|-|-|\n");
    while s.len() < 2_000_000 {
        s.push_str("|1|2|\n");
    }
    assert_eq!(parse(&s), Err(ParseError::TooComplex));
}
