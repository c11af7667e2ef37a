//! Every claim of the sample's write-up is load-bearing: for every number,
//! digest and count word of its rendered prose and tables, a copy of the
//! write-up with that one token changed (last digit or hex character + 1, a
//! count word replaced by another count) does not pass
//! `verify --require-all` against the sample bundle. The test finds the
//! tokens itself (the sample's Markdown has no markup that changes text:
//! its source tokens are its rendered tokens) and reports how many it
//! mutated.

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::path::Path;

use publication_support::*;

/// A count word and what it becomes.
const COUNTS: &[(&str, &str)] = &[
    ("one", "two"),
    ("two", "three"),
    ("three", "four"),
    ("four", "five"),
    ("eight", "nine"),
    ("both", "three"),
    ("every", "no"),
    ("each", "no"),
    ("all", "no"),
];

/// (byte range, replacement) of every token of `text` that states a
/// number, digest or count.
fn tokens(text: &str) -> Vec<(usize, usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let prev_alnum = i > 0 && b[i - 1].is_ascii_alphanumeric();
        if !prev_alnum && b[i].is_ascii_alphanumeric() {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_alphanumeric() {
                j += 1;
            }
            let word = &text[i..j];
            let hex = word.len() >= 40 && word.bytes().all(|c| c.is_ascii_hexdigit());
            if hex {
                let last = word.as_bytes()[word.len() - 1];
                let next = match last {
                    b'9' => 'a',
                    b'f' => '0',
                    c => (c + 1) as char,
                };
                out.push((j - 1, j, next.to_string()));
            } else if word.as_bytes()[0].is_ascii_digit() {
                // A number: through its decimal point and thousands groups.
                let mut k = i;
                while k < b.len()
                    && (b[k].is_ascii_digit()
                        || (matches!(b[k], b'.' | b',')
                            && b.get(k + 1).is_some_and(u8::is_ascii_digit)))
                {
                    k += 1;
                }
                let last = b[k - 1];
                let next = if last == b'9' {
                    '0'
                } else {
                    (last + 1) as char
                };
                out.push((k - 1, k, next.to_string()));
                i = k;
                continue;
            } else if let Some((_, to)) = COUNTS.iter().find(|(w, _)| w.eq_ignore_ascii_case(word))
            {
                let to = if word.as_bytes()[0].is_ascii_uppercase() {
                    let mut c = to.chars();
                    c.next()
                        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
                } else {
                    to.to_string()
                };
                out.push((i, j, to));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

#[test]
fn every_number_digest_and_count_of_the_sample_write_up_is_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let text = std::fs::read_to_string(root.join("PUBLICATION.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("PUBLICATION.md");
    let toks = tokens(&text);
    let mut passed = Vec::new();
    for (from, to, with) in &toks {
        let mutated = format!("{}{with}{}", &text[..*from], &text[*to..]);
        std::fs::write(&path, &mutated).unwrap();
        let o = verify_with(
            &root.join("kimi-k3-mi355x-20260923-sample.tgz"),
            &[
                os("--publication"),
                path.as_os_str(),
                os("--trust"),
                root.join("trust.json").as_os_str(),
                os("--require-all"),
            ],
        );
        if o.code == 0 {
            let line = text[..*from].matches('\n').count() + 1;
            let start = text[..*from]
                .rfind(|c: char| c.is_whitespace())
                .map_or(0, |s| s + 1);
            passed.push(format!(
                "line {line}: {:?} -> {with:?}",
                &text[start..(*to).max(start)]
            ));
        }
    }
    eprintln!("mutated {} tokens of the sample write-up", toks.len());
    assert!(toks.len() > 60, "only {} tokens found", toks.len());
    assert!(
        passed.is_empty(),
        "these mutations still pass --require-all: {passed:#?}"
    );
}
