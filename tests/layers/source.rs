//! Rust source read as text: comments and literals blanked out, `#[cfg(test)]`
//! items dropped, and every path that names a module of the crate found,
//! with `use` groups expanded.

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with every comment and every string and character literal replaced
/// by spaces (newlines kept, so line numbers hold). Lifetimes and labels stay.
pub fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        match literal_or_comment_end(&c, i) {
            Some(end) => {
                for &ch in &c[i..end] {
                    out.push(if ch == '\n' { '\n' } else { ' ' });
                }
                i = end;
            }
            None => {
                out.push(c[i]);
                i += 1;
            }
        }
    }
    out
}

/// Where the comment or literal starting at `i` ends (exclusive), if one does.
fn literal_or_comment_end(c: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    match c[i] {
        '/' if at(i + 1) == '/' => Some((i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len())),
        '/' if at(i + 1) == '*' => Some(block_comment_end(c, i)),
        '"' => Some(string_end(c, i + 1)),
        '\'' if at(i + 1) == '\\' => {
            let close = (i + 3..c.len()).find(|&k| c[k] == '\'');
            Some(close.map_or(c.len(), |k| k + 1))
        }
        '\'' if at(i + 2) == '\'' => Some(i + 3),
        'r' if token_start(c, i) => raw_string_end(c, i + 1),
        _ => None,
    }
}

/// `r` at `i` starts a token: nothing of an identifier before it, or only a
/// `b`/`c` prefix (`br"…"`, `cr"…"`).
fn token_start(c: &[char], i: usize) -> bool {
    let before = |k: usize| k > 0 && is_ident(c[k - 1]);
    !before(i) || (matches!(c[i - 1], 'b' | 'c') && !before(i - 1))
}

fn block_comment_end(c: &[char], i: usize) -> usize {
    let (mut depth, mut k) = (0, i);
    while k + 1 < c.len() {
        if c[k] == '/' && c[k + 1] == '*' {
            depth += 1;
            k += 2;
        } else if c[k] == '*' && c[k + 1] == '/' {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return k;
            }
        } else {
            k += 1;
        }
    }
    c.len()
}

fn string_end(c: &[char], mut k: usize) -> usize {
    while k < c.len() {
        match c[k] {
            '\\' => k += 2,
            '"' => return k + 1,
            _ => k += 1,
        }
    }
    c.len()
}

/// The end of a raw string whose `#…"` starts at `k`, if there is one.
fn raw_string_end(c: &[char], mut k: usize) -> Option<usize> {
    let hashes = c[k..].iter().take_while(|&&ch| ch == '#').count();
    k += hashes;
    if c.get(k) != Some(&'"') {
        return None;
    }
    let close: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let end = (k + 1..c.len()).find(|&j| c[j..].starts_with(&close));
    Some(end.map_or(c.len(), |j| j + close.len()))
}

/// `code` (already [`code_only`]) with each `#[cfg(test)]` item blanked out:
/// inline test modules, whose `super::` is the file itself, and test-only
/// helpers.
pub fn without_test_items(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out: Vec<char> = c.clone();
    let needle: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + needle.len() <= c.len() {
        if c[i..].starts_with(&needle) {
            let end = item_end(&c, i + needle.len());
            for ch in &mut out[i..end] {
                if *ch != '\n' {
                    *ch = ' ';
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// The end of the item starting at `k`: its first `;` outside brackets, or
/// the brace that closes its first `{`.
fn item_end(c: &[char], mut k: usize) -> usize {
    let (mut brackets, mut braces) = (0i32, 0i32);
    while k < c.len() {
        match c[k] {
            '(' | '[' => brackets += 1,
            ')' | ']' => brackets -= 1,
            ';' if brackets == 0 && braces == 0 => return k + 1,
            '{' => braces += 1,
            '}' => {
                braces -= 1;
                if braces == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    c.len()
}

/// One path in the code: its segments as written (`super`, `crate`, … kept).
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence {
    /// 1-based line of the path's last segment.
    pub line: usize,
    pub segments: Vec<String>,
    /// The name a `use` brings into scope (`None` for paths in code and globs).
    pub alias: Option<String>,
    /// Inside a `use` declaration.
    pub in_use: bool,
    /// A `use` at the top level of the file: an item of the module itself.
    pub top_level: bool,
    /// How many inline `mod x { … }` blocks enclose the path.
    pub inline: usize,
}

/// A cursor over the characters of [`code_only`] text.
struct Scan<'a> {
    c: &'a [char],
    k: usize,
    line: usize,
}

impl Scan<'_> {
    fn skip_ws(&mut self) {
        while self.k < self.c.len() && self.c[self.k].is_whitespace() {
            if self.c[self.k] == '\n' {
                self.line += 1;
            }
            self.k += 1;
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        let want: Vec<char> = s.chars().collect();
        let ok = self.c[self.k..].starts_with(&want);
        if ok {
            self.k += want.len();
        }
        ok
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.k;
        while self.k < self.c.len() && is_ident(self.c[self.k]) {
            self.k += 1;
        }
        (self.k > start).then(|| self.c[start..self.k].iter().collect())
    }

    /// A `use` tree after `prefix`: every leaf path and the name it binds.
    fn use_tree(&mut self, prefix: &[String], out: &mut Vec<(usize, Vec<String>, Option<String>)>) {
        if self.eat("{") {
            while !self.eat("}") && self.k < self.c.len() {
                self.use_tree(prefix, out);
                self.eat(",");
            }
            return;
        }
        if self.eat("*") {
            let mut p = prefix.to_vec();
            p.push("*".into());
            out.push((self.line, p, None));
            return;
        }
        let Some(name) = self.ident() else {
            self.k += 1; // not a path: step over it
            return;
        };
        let mut p = prefix.to_vec();
        if self.eat("::") {
            p.push(name);
            return self.use_tree(&p, out);
        }
        let alias = if self.eat("as ") { self.ident() } else { None };
        if name != "self" {
            p.push(name.clone());
        }
        let bound = alias.or_else(|| p.last().cloned()).filter(|a| a != "_");
        out.push((self.line, p, bound));
    }

    /// A path in code whose first segment has been read: `a::b::c`, up to
    /// the first thing that is not `:: ident`.
    fn code_path(&mut self, first: String) -> Vec<String> {
        let mut p = vec![first];
        loop {
            let save = (self.k, self.line);
            if !self.eat("::") {
                break;
            }
            match self.ident() {
                Some(s) => p.push(s),
                None => {
                    (self.k, self.line) = save;
                    break;
                }
            }
        }
        p
    }
}

/// Every path of `code` ([`code_only`] text) that starts with an identifier
/// followed by `::`, and every leaf of every `use` tree.
pub fn occurrences(code: &str) -> Vec<Occurrence> {
    let c: Vec<char> = code.chars().collect();
    let mut s = Scan {
        c: &c,
        k: 0,
        line: 1,
    };
    let mut out = Vec::new();
    let (mut depth, mut inline_at): (usize, Vec<usize>) = (0, Vec::new());
    while s.k < c.len() {
        let ch = c[s.k];
        let starts = is_ident(ch) && (s.k == 0 || !(is_ident(c[s.k - 1]) || c[s.k - 1] == '$'));
        if !starts {
            match ch {
                '\n' => s.line += 1,
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if inline_at.last() == Some(&(depth + 1)) {
                        inline_at.pop();
                    }
                }
                _ => {}
            }
            s.k += 1;
            continue;
        }
        let after_colons = s.k >= 2 && c[s.k - 1] == ':' && c[s.k - 2] == ':';
        let word = s.ident().unwrap();
        let base = |in_use, alias, segments, line| Occurrence {
            line,
            segments,
            alias,
            in_use,
            top_level: depth == 0 && inline_at.is_empty(),
            inline: inline_at.len(),
        };
        if word == "use" {
            let mut leaves = Vec::new();
            s.use_tree(&[], &mut leaves);
            out.extend(leaves.into_iter().map(|(l, p, a)| base(true, a, p, l)));
        } else if word == "mod" {
            let save = (s.k, s.line);
            if s.ident().is_some() && s.eat("{") {
                depth += 1;
                inline_at.push(depth);
            } else {
                (s.k, s.line) = save;
            }
        } else if !after_colons && s.c[s.k..].starts_with(&[':', ':']) {
            let p = s.code_path(word);
            out.push(base(false, None, p, s.line));
        }
    }
    out
}

/// The names of the items defined at the top level of `code` (structs,
/// enums, unions, functions, consts, statics, types, traits; any visibility),
/// not modules and not `use`s.
pub fn defined_items(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for line in code.lines() {
        if depth == 0 {
            out.extend(item_name(line));
        }
        for ch in line.chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    out
}

/// The name an item line defines: `pub(crate) const fn x`, `struct Y`, ….
fn item_name(line: &str) -> Option<String> {
    let toks: Vec<&str> = line
        .split(|ch: char| !is_ident(ch))
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while i < toks.len() && matches!(toks[i], "pub" | "crate" | "super" | "in" | "self") {
        i += 1;
    }
    while i < toks.len() && matches!(toks[i], "async" | "unsafe" | "extern") {
        i += 1;
    }
    let kinds = [
        "struct", "enum", "union", "fn", "const", "static", "type", "trait",
    ];
    let kind = *toks.get(i)?;
    if !kinds.contains(&kind) || !line.trim_start().starts_with(toks[0]) {
        return None;
    }
    let rest = &toks[i + 1..];
    let name = match (kind, rest.first().copied()) {
        ("const", Some("fn" | "unsafe" | "async")) => {
            rest.iter().skip_while(|w| **w != "fn").nth(1)
        }
        ("static", Some("mut")) => rest.get(1),
        _ => rest.first(),
    };
    name.map(|n| n.to_string())
}

/// The modules `code` declares from files: `mod x;`, `pub(crate) mod y;`.
pub fn declared_modules(code: &str) -> Vec<String> {
    let toks: Vec<&str> = code
        .split(|ch: char| !is_ident(ch) && ch != ';')
        .flat_map(|w| w.split_inclusive(';'))
        .filter(|w| !w.is_empty())
        .collect();
    toks.windows(2)
        .filter(|w| w[0] == "mod" && w[1].ends_with(';') && w[1].len() > 1)
        .map(|w| w[1].trim_end_matches(';').to_string())
        .collect()
}
