//! Reading stored rows back. The catalog file is anyone's to edit (another
//! tool, a crafted file, a disk that flipped a bit inside a value), so a
//! value read from it is checked, never trusted: a column of the wrong type,
//! text that is not UTF-8 or a value outside what proofpack writes makes the
//! row a [`CatalogError::BadRow`] naming it, never a panic or a wrong value.
//! Stored values that appear in messages or on a terminal go through
//! [`shown_value`]: escaped, and cut on a character boundary with their
//! length, so that a 10 MB value is never echoed whole.

use super::error::CatalogError;
use super::handle::Catalog;

/// How many characters of a stored value a message quotes.
const QUOTED_CHARS: usize = 64;

/// The longest reason a [`CatalogError::BadRow`] gives, in characters.
const REASON_CHARS: usize = 512;

/// A value read from the catalog, fit for a message or a terminal: control
/// characters and the invisible characters that reorder or hide text
/// (bidirectional controls, zero-width characters) escaped as `\u{..}`, and
/// cut after `max` characters, never inside one, with the value's length in
/// bytes appended when it was cut (`abc… (10485760 bytes)`). A value that
/// needs neither is returned as it is.
pub fn shown_value(value: &str, max: usize) -> String {
    let mut out = String::with_capacity(value.len().min(max.saturating_mul(4)) + 24);
    for (n, c) in value.chars().enumerate() {
        if n == max {
            out.push_str(&format!("… ({} bytes)", value.len()));
            break;
        }
        if c.is_control() || is_invisible(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Format characters that change how the text around them reads.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// A stored value quoted for a [`CatalogError::BadRow`] reason: `"…"` with
/// the value shown as [`shown_value`] does.
pub(super) fn quoted(value: &str) -> String {
    format!("\"{}\"", shown_value(value, QUOTED_CHARS))
}

/// Why reading a column failed, in the words of a [`CatalogError::BadRow`]
/// reason: the column's name and what it holds instead. Only the errors of
/// `Row::get` come here; those of the query itself are not a row's fault.
pub(super) fn column_problem(row: &rusqlite::Row<'_>, e: &rusqlite::Error) -> String {
    let name = |i: usize| {
        row.as_ref()
            .column_name(i)
            .map_or_else(|_| format!("column {i}"), str::to_string)
    };
    match e {
        rusqlite::Error::InvalidColumnType(_, name, ty) => {
            format!("{name} holds {}", type_name(*ty))
        }
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, _) => {
            format!("{} is not valid UTF-8 text", name(*i))
        }
        rusqlite::Error::FromSqlConversionFailure(i, ty, _) => {
            format!("{} holds {}", name(*i), type_name(*ty))
        }
        rusqlite::Error::IntegralValueOutOfRange(i, v) => {
            format!("{} holds {v}, out of range", name(*i))
        }
        other => other.to_string(),
    }
}

fn type_name(ty: rusqlite::types::Type) -> &'static str {
    use rusqlite::types::Type;
    match ty {
        Type::Null => "NULL",
        Type::Integer => "an integer",
        Type::Real => "a real number",
        Type::Text => "text",
        Type::Blob => "a BLOB",
    }
}

/// A stored count (an INTEGER column proofpack fills with a `u64`).
pub(super) fn count(row: &rusqlite::Row<'_>, i: usize) -> Result<Option<u64>, String> {
    match row.get::<_, Option<i64>>(i) {
        Ok(None) => Ok(None),
        Ok(Some(n)) => u64::try_from(n).map(Some).map_err(|_| {
            let name = row.as_ref().column_name(i).unwrap_or("a count");
            format!("{name} is {n}, not a count")
        }),
        Err(e) => Err(column_problem(row, &e)),
    }
}

impl Catalog {
    /// The error for a stored row that does not hold what proofpack wrote.
    pub(super) fn bad_row(&self, what: String, reason: &str) -> CatalogError {
        CatalogError::BadRow {
            path: self.path.clone(),
            what,
            reason: shown_value(reason, REASON_CHARS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_values_are_escaped_and_cut_on_characters() {
        assert_eq!(shown_value("", 4), "");
        assert_eq!(shown_value("abc", 4), "abc");
        assert_eq!(shown_value("abcd", 4), "abcd");
        assert_eq!(shown_value("abcde", 4), "abcd… (5 bytes)");
        // "é" is two bytes: a cut after 3 characters keeps it whole.
        assert_eq!(shown_value("aaéé", 3), "aaé… (6 bytes)");
        assert_eq!(shown_value("a\u{1b}[2J\n", 9), "a\\u{1b}[2J\\u{a}");
        assert_eq!(shown_value("x\u{202e}y\u{200b}", 9), "x\\u{202e}y\\u{200b}");
        assert_eq!(shown_value("日本語テキスト", 2), "日本… (21 bytes)");
        assert_eq!(shown_value("abc", 0), "… (3 bytes)");
        assert_eq!(quoted("k"), "\"k\"");
        assert!(quoted(&"k".repeat(1000)).ends_with("k… (1000 bytes)\""));
    }
}
