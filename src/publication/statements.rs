//! The statements of the write-up's prose (contract section 9.6): every
//! sentence or clause of a rendered paragraph, heading, list item or quote,
//! and every code-block line that holds a number, a digest or commit, a
//! count word, a percentage or a pass/fail word. Each is kept with the
//! source line it starts on and its text as rendered, so that the verifier
//! checks it against the evidence or names it, by line, as not checked.
//! The only prose that is no statement is of the closed shapes the contract
//! lists: the section titles of the tables ([`SECTION_TITLES`]), a clause
//! without a letter or digit, and a code-block line without a claim.
//!
//! Sentences end at `.`, `!` or `?` followed by white space and a character
//! that is not a lower-case letter (a decimal point is followed by a digit,
//! "e.g. the" by a lower-case word); a sentence splits into clauses at `; `.
//! Statement ids are the line a clause starts on, with `.<k>` (1-based,
//! in order) when more than one statement starts on that line.

use super::document::{Document, ProseKind};

pub use super::types::MAX_STATEMENTS;

/// One statement of the prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The id's tail: `<line>` or `<line>.<k>`.
    pub id: String,
    /// The source line it starts on.
    pub line: usize,
    /// The text as rendered (white space runs as one space).
    pub text: String,
    /// The index of its block in [`Document::blocks`].
    pub block: usize,
    /// Its byte range in that block's text.
    pub span: (usize, usize),
}

/// Words that count ("one", "every", "both", ...): a statement that uses
/// one states a count.
pub const COUNT_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "twenty", "hundred",
    "thousand", "million", "billion", "dozen", "once", "twice", "single", "both", "every", "each",
    "all", "none", "no", "half",
];

/// Words that state an outcome.
pub const OUTCOME_WORDS: &[&str] = &[
    "pass",
    "passed",
    "passes",
    "passing",
    "fail",
    "failed",
    "fails",
    "failing",
    "failure",
    "failures",
    "complete",
    "completed",
    "completes",
    "confirmed",
    "confirms",
    "confirm",
    "agree",
    "agrees",
    "agreed",
    "match",
    "matched",
    "matches",
    "matching",
    "within",
    "succeeded",
    "success",
    "successful",
    "verified",
    "error",
    "errors",
    "ok",
    "timed",
    "cancelled",
    "canceled",
    "rejected",
    "exceeded",
    "identical",
];

/// The headings that title the two tables proofpack reads (any case):
/// labels, no claim, so no statement. Any other heading is a sentence like
/// the paragraphs'.
pub const SECTION_TITLES: &[&str] = &["Pinned inputs", "Measured points"];

/// True when a heading is one of [`SECTION_TITLES`].
pub fn is_section_title(text: &str) -> bool {
    let t = text.trim();
    SECTION_TITLES.iter().any(|s| t.eq_ignore_ascii_case(s))
}

/// True when a clause says something in words or numbers (it holds a
/// letter or a digit): a run of punctuation or symbols states nothing.
fn says_something(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// True when `text` holds a claim: a number (a digit not inside a word, so
/// "Kimi-K3" and "MI355X" are names), a digest or commit (seven or more hex
/// characters with a digit), a percentage, a count word or an outcome word.
pub fn is_claim(text: &str) -> bool {
    if text.contains('%') {
        return true;
    }
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_digit() && !prev.is_some_and(char::is_alphanumeric) {
            return true;
        }
        prev = Some(c);
    }
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .any(|w| {
            let w = w.to_lowercase();
            let w = w.strip_suffix("'s").unwrap_or(&w);
            let hex = w.len() >= 7
                && w.bytes().all(|b| b.is_ascii_hexdigit())
                && w.bytes().any(|b| b.is_ascii_digit());
            hex || COUNT_WORDS.contains(&w) || OUTCOME_WORDS.contains(&w) || w == "percent"
        })
}

/// Byte ranges of the clauses of `text`: sentences split at `.`/`!`/`?`
/// plus white space before a character that is not lower case (but not
/// after a list item's number), and at `; `.
fn clauses(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let at_space = b.get(i + 1) == Some(&b' ');
        let ends = match c {
            // An ordered-list item's number ("200. higher-rate point")
            // ends no sentence.
            b'.' if i > start && b[start..i].iter().all(u8::is_ascii_digit) => false,
            b'.' | b'!' | b'?' => {
                // `c` is ASCII, so `i + 2` is a character boundary.
                at_space
                    && text[i + 2..]
                        .chars()
                        .next()
                        .is_some_and(|n| !n.is_lowercase())
            }
            b';' => at_space,
            _ => false,
        };
        if ends {
            let end = if c == b';' { i } else { i + 1 };
            out.push((start, end));
            start = i + 2;
            i += 2;
            continue;
        }
        i += 1;
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// The write-up states more than [`MAX_STATEMENTS`] statements; the line
/// of the first one past the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyStatements(pub usize);

/// Every statement of the document's prose, in order; more than
/// [`MAX_STATEMENTS`] is an error.
pub fn statements(doc: &Document) -> Result<Vec<Statement>, TooManyStatements> {
    // (line, text, block, span)
    let mut found: Vec<(usize, String, usize, (usize, usize))> = Vec::new();
    for (bi, b) in doc.blocks.iter().enumerate() {
        let super::document::Block::Prose(p) = b else {
            continue;
        };
        match p.kind {
            ProseKind::Rule => {}
            ProseKind::Code => {
                let mut off = 0;
                for l in p.text.split('\n') {
                    let t = super::document::squash(l);
                    if is_claim(&t) {
                        if found.len() == MAX_STATEMENTS {
                            return Err(TooManyStatements(p.line_at(off)));
                        }
                        found.push((p.line_at(off), t, bi, (off, off + l.len())));
                    }
                    off += l.len() + 1;
                }
            }
            ProseKind::Heading(_) if is_section_title(&p.text) => {}
            ProseKind::Paragraph | ProseKind::Heading(_) => {
                for (s, e) in clauses(&p.text) {
                    let t = p.text[s..e].trim();
                    if says_something(t) {
                        let lead = p.text[s..].len() - p.text[s..].trim_start().len();
                        let at = s + lead;
                        if found.len() == MAX_STATEMENTS {
                            return Err(TooManyStatements(p.line_at(at)));
                        }
                        found.push((p.line_at(at), t.to_string(), bi, (at, at + t.len())));
                    }
                }
            }
        }
    }
    // How many statements start on each line, and how many of them have
    // been numbered so far (one pass each: a write-up may hold tens of
    // thousands of statements).
    let mut on_line: std::collections::HashMap<usize, (usize, usize)> =
        std::collections::HashMap::new();
    for f in &found {
        on_line.entry(f.0).or_default().0 += 1;
    }
    let mut out = Vec::with_capacity(found.len());
    for (line, text, block, span) in found {
        let (same, seen) = on_line.get_mut(&line).map_or((1, 0), |c| {
            c.1 += 1;
            (c.0, c.1)
        });
        let id = if same == 1 {
            line.to_string()
        } else {
            format!("{line}.{seen}")
        };
        out.push(Statement {
            id,
            line,
            text,
            block,
            span,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(md: &str) -> Vec<(String, String)> {
        let d = Document::parse(md, "w.md").unwrap();
        statements(&d)
            .unwrap()
            .into_iter()
            .map(|s| (s.id, s.text))
            .collect()
    }

    #[test]
    fn every_sentence_and_clause_is_a_statement_by_line() {
        let got = of("Kimi-K3 on MI355X.\n\n## Pinned inputs\n\nBoth points completed. It ran 0.5 request/s\nfor a while; the journal recorded 201 requests.\nNothing here.\n\n- 3 hosts\n\n---\n\n> ...\n\n```\nok\nplain\n```\n");
        assert_eq!(
            got,
            [
                ("1".into(), "Kimi-K3 on MI355X.".into()),
                ("5.1".into(), "Both points completed.".into()),
                ("5.2".into(), "It ran 0.5 request/s for a while".into()),
                ("6".into(), "the journal recorded 201 requests.".into()),
                ("7".into(), "Nothing here.".into()),
                ("9".into(), "3 hosts".into()),
                ("16".into(), "ok".into()),
            ]
        );
    }

    #[test]
    fn decimals_and_abbreviations_do_not_split() {
        let got = of("Medians around 0.88 s, e.g. the first. Done.\n");
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].1, "Medians around 0.88 s, e.g. the first.");
        assert_eq!(got[1].1, "Done.");
    }
}
