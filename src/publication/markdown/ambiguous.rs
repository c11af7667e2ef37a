//! Lines two GFM readers may show differently (contract section 9
//! "Refused"): each kind found by the differential fuzz target
//! `publication_gfm`, where cmark-gfm and comrak rendered the same input as
//! different text. They are refused on the source, outside code blocks,
//! before what either parser made of them matters.

const TILDE: &str = "a tilde that can close a strikethrough opened by an earlier one in the paragraph: GitHub strikes some such text through and other readers do not; reword it (write \"about\" for an approximation)";
const PIPE: &str = "a pipe after two backslashes (\\\\|): GitHub's table reader takes every backslash before a pipe as escaping it, other readers take the backslashes as one escaped backslash and the pipe as a cell border; reword it";
const FOOTNOTE: &str = "\"[^\" (a footnote reference or its look-alike): GitHub renders some of these as a note, some as other text than written; reword it";
const HTML: &str = "a line that begins like HTML (<tag, </tag, <! or <?): GitHub starts an HTML block there, which shows nothing of what it holds";
/// The longest run of one emphasis character proofpack reads.
const MAX_EMPHASIS_RUN: usize = 3;

/// The column and length of the first run of more than
/// [`MAX_EMPHASIS_RUN`] `*` or `_` on a line that is not a thematic break
/// (a line of three or more of one of `*`, `-`, `_` and spaces only).
/// The column of the first `*` or `_` run on a line that stands beside a
/// character other than ASCII that is neither a letter, a digit nor white
/// space (a symbol such as `®`, punctuation such as `¶`): CommonMark 0.31
/// counts symbols as punctuation for its flanking rules and cmark-gfm's
/// older table does not, so the two pair such runs differently.
fn emphasis_beside_symbol(line: &str) -> Option<(usize, char)> {
    let odd = |c: Option<char>| {
        c.is_some_and(|c| !c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
    };
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        if c != '*' && c != '_' {
            continue;
        }
        let before = k.checked_sub(1).map(|p| chars[p].1);
        let after = chars.get(k + 1).map(|x| x.1);
        if odd(before) {
            return before.map(|b| (at + 1, b));
        }
        if odd(after) {
            return after.map(|a| (at + 1, a));
        }
    }
    None
}

fn long_emphasis_run(line: &str) -> Option<(usize, usize, char)> {
    let t = after_markers(line);
    let mut chars = t.chars().filter(|c| !matches!(c, ' ' | '\t'));
    if let Some(first) = chars.next() {
        if matches!(first, '*' | '-' | '_') && chars.all(|c| c == first) {
            return None;
        }
    }
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'*' || c == b'_' {
            let n = b[i..].iter().take_while(|x| **x == c).count();
            // An escaped first character is text: the run starts after it.
            let escaped = usize::from(i > 0 && b[i - 1] == b'\\');
            if n - escaped > MAX_EMPHASIS_RUN {
                return Some((i + 1 + escaped, n - escaped, c as char));
            }
            i += n;
        } else {
            i += 1;
        }
    }
    None
}

const LINK_DEF: &str = "a line that begins like a link reference definition ([label]: destination): readers disagree on which such lines define a link and render as nothing; reword it";

/// The column of the first run of `~` on `line` that may close a
/// strikethrough (not preceded by white space) after one that may open it
/// (not followed by white space) earlier in the paragraph (`open` carries
/// that over lines). CommonMark's flanking rules (6.2) also weigh
/// punctuation, and readers' Unicode tables differ on what that is; leaving
/// it out errs towards finding.
fn tilde_close(line: &str, open: &mut bool) -> Option<usize> {
    let mut it = line.char_indices().peekable();
    let mut prev = ' ';
    while let Some((at, c)) = it.next() {
        if c != '~' {
            prev = c;
            continue;
        }
        while it.peek().is_some_and(|(_, c)| *c == '~') {
            it.next();
        }
        let next = it.peek().map_or(' ', |(_, c)| *c);
        // Flanking with the punctuation conditions left out: a superset
        // of what any reader's Unicode tables make of them.
        let left = !next.is_whitespace();
        let right = !prev.is_whitespace();
        if right && *open {
            return Some(at + 1);
        }
        *open |= left;
        prev = '~';
    }
    None
}

/// A line's text that starts an HTML block in CommonMark, as far as its
/// first characters tell: `<!`, `<?`, or `<` or `</` with a tag name ended
/// by white space, `>`, `/>` or the line's end (an autolink such as
/// `<https://...>` is not one: `:` ends no tag name).
fn html_start(rest: &str) -> bool {
    let Some(r) = rest.strip_prefix('<') else {
        return false;
    };
    if r.starts_with(['!', '?']) {
        return true;
    }
    let r = r.strip_prefix('/').unwrap_or(r);
    let name = r
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'-')
        .count();
    if name == 0 || !r.as_bytes()[0].is_ascii_alphabetic() {
        return false;
    }
    let after = &r[name..];
    after.is_empty() || after.starts_with([' ', '\t', '\r', '>']) || after.starts_with("/>")
}

/// Lines two GFM readers may show differently, outside code
/// blocks. A `~` that can close a strikethrough an earlier one opened
/// (the parsers differ on tildes beside punctuation). A pipe after two
/// backslashes (`\\|`: cmark-gfm's row splitter escapes the pipe, comrak
/// the backslash). Any `[^` (a footnote reference, or a label cmark-gfm renders as
/// `[^]`). A line that begins like a link reference definition (`[` after
/// its container markers, `]:` later on it): cmark-gfm and comrak do not
/// agree on every destination, so one may drop the line and the other show
/// it. And an extended `www.` autolink (GFM) whose text holds a character
/// that starts inline markup (`` ` `` `*` `[` `\` `&`). cmark-gfm takes a
/// `www.` at the start of a line, after white space or after `*` `_` `~`
/// `(`, and links everything up to the next white space or `<`, so it
/// shows those characters as written; comrak does not link some of these
/// (a `www.` with one label after it) and reads the markup instead, so the
/// two show different text. Refused, with where it is, outside code blocks.
pub(super) fn lines(lines: &[&str], code: &[bool]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut tilde_open = false;
    for (i, l) in lines.iter().enumerate() {
        if code.get(i + 1).copied().unwrap_or(false) || l.trim().is_empty() {
            tilde_open = false;
            continue;
        }
        if let Some(column) = tilde_close(l, &mut tilde_open) {
            out.push((i + 1, column, TILDE.into()));
        }
        let rest = after_markers(l);
        if html_start(rest) {
            let column = l.len() - rest.len() + 1;
            out.push((i + 1, column, HTML.into()));
        }
        if let Some((column, s)) = emphasis_beside_symbol(l) {
            out.push((i + 1, column, format!("an emphasis character beside {s:?} (U+{:04X}): GitHub and other readers disagree on whether such a character lets it open or close emphasis, so they show different text; put a space between them, or escape the * or _", s as u32)));
        }
        if let Some((column, n, c)) = long_emphasis_run(l) {
            out.push((i + 1, column, format!("a run of {n} {c:?}: GitHub and other readers pair runs of more than {MAX_EMPHASIS_RUN} emphasis characters differently, so they show different text; write at most {MAX_EMPHASIS_RUN}, or escape them (\\{c})")));
        }
        if let Some(at) = l.find("[^") {
            out.push((i + 1, at + 1, FOOTNOTE.into()));
        }
        if let Some(at) = l.find("\\\\|") {
            out.push((i + 1, at + 1, PIPE.into()));
        }
        if rest.starts_with('[') && rest.contains("]:") {
            let column = l.len() - l.trim_start().len() + 1;
            out.push((i + 1, column, LINK_DEF.into()));
        }
        let s = l.as_bytes();
        for (at, _) in l.match_indices("www.") {
            let starts = at == 0 || {
                let p = s[at - 1];
                p.is_ascii_whitespace() || matches!(p, b'*' | b'_' | b'~' | b'(')
            };
            if !starts {
                continue;
            }
            let end = s[at..]
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'<')
                .map_or(s.len(), |p| at + p);
            if let Some(c) = s[at..end]
                .iter()
                .find(|c| matches!(c, b'`' | b'*' | b'[' | b'\\' | b'&'))
            {
                let (link, c) = (&l[at..end], *c as char);
                out.push((i + 1, at + 1, format!("the address {link:?} holds {c:?}: GitHub links it up to the next space and shows the {c:?} as written, other readers read it as markup, so they show different text; write the address with its scheme (https://...) or as a code span")));
            }
        }
    }
    out
}

/// The text of a line after its container markers (`>`, list markers and
/// white space).
pub(super) fn after_markers(line: &str) -> &str {
    let mut rest = line.trim();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return rest;
        }
        if let Some(r) = rest.strip_prefix('>') {
            rest = r;
            continue;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let after = &rest[digits..];
        let marker = if digits == 0 {
            after.starts_with(['-', '+', '*']).then_some(1)
        } else if digits <= 9 {
            after.starts_with(['.', ')']).then_some(digits + 1)
        } else {
            None
        };
        match marker {
            Some(n) if rest[n..].is_empty() || rest[n..].starts_with([' ', '\t']) => {
                rest = &rest[n..]
            }
            _ => return rest,
        }
    }
}
