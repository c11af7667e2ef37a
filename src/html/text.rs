//! Text on the page: escaped for HTML, and JSON values shown as text.

use std::fmt::Write as _;

use serde_json::Value;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(o, "\\u{{{:04x}}}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

/// A JSON value as text: a string as itself, null as nothing.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
