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

#[test]
fn a_code_block_ends_its_lines_as_cmark_gfm_writes_them() {
    // cmark-gfm writes a CR LF inside a code block as LF.
    let t = parse("Intro.\r\n\r\n```\r\na\r\nb\r\n```\r\n").unwrap();
    let code = t.blocks.iter().find(|b| b.kind == BlockKind::Code).unwrap();
    assert_eq!(code.text, "a\nb\n");
}

#[test]
fn a_www_address_holding_markup_is_found() {
    // cmark-gfm shows "see www.`x`y" as written (one link); a reader that
    // does not link it shows "see www.xy".
    for (text, col) in [
        ("see www.`x`y\n", 5),
        ("www.a*b*c\n", 1),
        ("> (www.a[b](c))\n", 4),
        ("| a |\n|---|\n| www.a\\*b |\n", 3),
    ] {
        let t = parse(text).unwrap();
        let f = t.findings.first().unwrap_or_else(|| panic!("{text:?}"));
        assert_eq!(f.column, col, "{text:?}");
        assert!(f.what.contains("GitHub links it"), "{}", f.what);
    }
    for text in [
        "`www.a*b*`\n",
        "https://x.com/`a`\n",
        "www.example.com/my_repo\n",
        "```\nwww.a*b*\n```\n",
        "awww.a*b*\n",
    ] {
        assert!(parse(text).unwrap().findings.is_empty(), "{text:?}");
    }
}

#[test]
fn a_line_that_may_define_a_link_is_found() {
    // cmark-gfm drops the first line as a definition; comrak shows it.
    let t = parse("> [)dden]:(/x0\"t\"\n[label]: /> t xt\n").unwrap();
    let f = t.findings.first().unwrap();
    assert_eq!((f.line, f.column), (1, 1));
    assert!(f.what.contains("link reference definition"), "{}", f.what);
    assert!(parse("A [link](http://x) and [b]: c.\n")
        .unwrap()
        .findings
        .is_empty());
}

/// The column of the first finding of `text` whose message holds `what`.
fn found_at(text: &str, what: &str) -> Option<usize> {
    let t = parse(text).unwrap();
    t.findings
        .iter()
        .find(|f| f.what.contains(what))
        .map(|f| f.column)
}

#[test]
fn a_line_that_begins_like_html_is_found() {
    // cmark-gfm starts an HTML block at "<div" at the end of the input.
    for text in ["| a | b1 |\n<div", "> <!-- x", "- </p>\n", "<br/>\n"] {
        assert!(found_at(text, "begins like HTML").is_some(), "{text:?}");
    }
    for text in ["<https://example.org>\n", "a <div\n", "<3 points\n"] {
        assert_eq!(found_at(text, "begins like HTML"), None, "{text:?}");
    }
}

#[test]
fn a_footnote_look_alike_is_found() {
    // cmark-gfm renders "([^1syntheti\nc s]a" as "([^]a".
    let t = parse("This is it ([^1syntheti\nc s]a\n").unwrap();
    let f = t.findings.first().unwrap();
    assert_eq!((f.line, f.column), (1, 13));
    assert!(f.what.contains("footnote"), "{}", f.what);
}

#[test]
fn a_tilde_that_can_close_a_strikethrough_is_found() {
    // cmark-gfm strikes "'~~'" through here; comrak does not.
    for (text, col) in [("~'~~'~e~~'~~'~e\n", 3), ("about ~5\nand x~ y\n", 6)] {
        assert_eq!(found_at(text, "strikethrough"), Some(col), "{text:?}");
    }
    for text in [
        "about ~5 s and ~6 s, ~0.4 request/s\n",
        "a ~5\n\nb~ c\n",
        "```\n~a~\n```\n",
    ] {
        assert_eq!(found_at(text, "strikethrough"), None, "{text:?}");
    }
}

#[test]
fn a_tilde_after_a_modifier_symbol_is_found() {
    // U+02F8 is no punctuation to cmark-gfm: the second run closes there.
    assert!(found_at("~}'\u{2f8}~www\u{2f8}!!\n", "strikethrough").is_some());
}

#[test]
fn the_last_line_reads_the_same_without_its_line_feed() {
    // cmark-gfm: "2." at the very end after a table is an empty list.
    let t = parse("| a | b |\n|---|---|\n| 1 | 2 |\n2.").unwrap();
    assert_eq!(t.blocks[0].rows.len(), 2, "{:?}", t.blocks[0].rows);
}

#[test]
fn a_pipe_after_two_backslashes_is_found() {
    // cmark-gfm: a one-cell table whose cell reads "|".
    assert_eq!(found_at("\\\\|\n|-\n", "two backslashes"), Some(1));
}

#[test]
fn runs_of_more_than_three_emphasis_characters_are_findings() {
    let found = |md: &str| parse(md).unwrap().findings;
    // The fuzz finding: readers pair long runs differently.
    let f = found("a ****b** c\n");
    assert_eq!((f.len(), f[0].line, f[0].column), (1, 1, 3), "{f:?}");
    assert!(f[0].what.contains("a run of 4 '*'"), "{f:?}");
    assert_eq!(found("x ____y\n").len(), 1);
    // Three, an escaped fourth, and thematic breaks are read.
    assert!(found("***a*** b\n").is_empty());
    assert!(found("a \\**** b\n").is_empty());
    assert!(
        found("para\n\n****\n\n* * * *\n\n- ____\n").is_empty(),
        "{:?}",
        found("para\n\n****\n\n* * * *\n\n- ____\n")
    );
    // Inside code they are verbatim.
    assert!(found("```\n********\n```\n").is_empty());
}

#[test]
fn emphasis_beside_a_symbol_is_a_finding_and_crlf_reads_as_one_line_ending() {
    let found = |md: &str| parse(md).unwrap().findings;
    // The fuzz findings: a symbol (So) or punctuation other than ASCII
    // beside an emphasis character; readers' Unicode tables differ.
    for md in ["<h\u{ae}_+h_+<s\n", "a _'__\u{b6}__?\n", "x *\u{2192}* y\n"] {
        let f = found(md);
        assert_eq!(f.len(), 1, "{md:?}: {f:?}");
        assert!(f[0].what.contains("an emphasis character beside"), "{f:?}");
    }
    // Letters of any script and white space beside it are read.
    assert!(
        found("*\u{b5}s* and _caf\u{e9}_ and * \u{ae}\n").is_empty(),
        "{:?}",
        found("*\u{b5}s* and _caf\u{e9}_ and * \u{ae}\n")
    );
    // A CR LF inside a code span is one line ending, one space, as
    // cmark-gfm renders it.
    let t = parse("kim\r\n `\n #m\r\n`\" x\r\n").unwrap();
    assert!(t.findings.is_empty(), "{:?}", t.findings);
    assert_eq!(t.blocks[0].text, "kim #m\" x");
}
