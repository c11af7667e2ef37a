//! Fuzz harness for the publication reader (issue 11): a write-up is
//! untrusted text from anywhere. Shared by the cargo-fuzz target
//! `publication_parse` and the stable replay test
//! (tests/publication_fuzz_corpus.rs).

use proofpack::publication::prose::read as read_statement;
use proofpack::publication::Publication;
use proofpack::run::qualification::Pins;
use proofpack::verify::checks::published::pins_from_publication;

/// Parses the bytes as a write-up (lossily decoded: the file reader refuses
/// non-UTF-8, the parser must survive anything). Invariants beyond "no panic,
/// no hang": every row and cell names a line of the text, and the pins a
/// write-up states form a pins file that parses, unless they are empty or
/// name one pin twice with two values.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // Lines as CommonMark counts them (and every line number the reader
    // gives): "\r\n", "\n" and a lone "\r" each end a line.
    let lines = text
        .replace("\r\n", "\n")
        .split(['\n', '\r'])
        .count()
        .max(1);
    let Ok(p) = Publication::parse(&text, "fuzz.md") else {
        return;
    };
    for r in &p.pinned {
        assert!(
            r.line >= 1 && r.line <= lines,
            "row line {} of {lines}",
            r.line
        );
    }
    for r in &p.points {
        assert!(
            r.line >= 1 && r.line <= lines,
            "point line {} of {lines}",
            r.line
        );
    }
    // Every statement names a line of the text, lies within its block at
    // character boundaries and is that block's text as rendered; reading
    // it with the statement grammars never panics.
    for st in &p.statements {
        assert!(
            st.line >= 1 && st.line <= lines,
            "statement line {} of {lines}",
            st.line
        );
        let Some(proofpack::publication::document::Block::Prose(b)) =
            p.document.blocks.get(st.block)
        else {
            panic!("statement {} names no prose block", st.id);
        };
        let raw = b
            .text
            .get(st.span.0..st.span.1)
            .expect("span at character boundaries");
        assert_eq!(
            proofpack::publication::document::squash(raw),
            st.text,
            "statement {}",
            st.id
        );
        let _ = read_statement(&st.text);
    }
    let (pins, _) = pins_from_publication(&p);
    let list = pins["pins"].as_array().expect("pins array");
    let mut names: Vec<&str> = list.iter().filter_map(|p| p["name"].as_str()).collect();
    names.sort();
    let unique = names.windows(2).all(|w| w[0] != w[1]);
    if !list.is_empty() && unique {
        let text = pins.to_string().into_bytes();
        Pins::parse(&text, "fuzz").expect("the pins of a write-up parse");
    }
}
