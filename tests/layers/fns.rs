//! The length of every function of src/, from its `fn` line to the line of
//! its closing brace, found by brace depth in [`code_only`] text.
//!
//! [`code_only`]: super::source::code_only

/// Every function with a body in `code` ([`super::source::code_only`] text):
/// (name, lines from the `fn` line to the closing brace, both counted).
pub fn function_lengths(code: &str) -> Vec<(String, usize)> {
    let c: Vec<char> = code.chars().collect();
    let mut line_of = Vec::with_capacity(c.len());
    let mut line = 1;
    for &ch in &c {
        line_of.push(line);
        if ch == '\n' {
            line += 1;
        }
    }
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    for k in 0..c.len() {
        let starts = c[k..].starts_with(&['f', 'n'])
            && (k == 0 || !is_ident(c[k - 1]))
            && c.get(k + 2).is_some_and(|ch| ch.is_whitespace());
        if !starts {
            continue;
        }
        let mut j = k + 2;
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        let name: String = c[j..].iter().take_while(|ch| is_ident(**ch)).collect();
        if name.is_empty() || name.starts_with(|ch: char| ch.is_ascii_digit()) {
            continue;
        }
        if let Some(close) = body_close(&c, j + name.len()) {
            out.push((name, line_of[close] - line_of[k] + 1));
        }
    }
    out
}

/// The closing brace of the body of the function whose signature continues
/// at `k`; `None` for a declaration without a body (`fn f();`).
fn body_close(c: &[char], mut k: usize) -> Option<usize> {
    let mut brackets = 0i32;
    while k < c.len() {
        match c[k] {
            '(' | '[' => brackets += 1,
            ')' | ']' => brackets -= 1,
            ';' if brackets == 0 => return None,
            '{' if brackets == 0 => break,
            _ => {}
        }
        k += 1;
    }
    let mut depth = 0;
    while k < c.len() {
        match c[k] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}
