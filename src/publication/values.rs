//! Values as a write-up states them: decimals with their precision, hex
//! digests in prose, and the slug of a label. Values are parsed, never
//! compared as strings; the forms a cell may take are in `grammar`.

use crate::digest::Sha256Digest;

/// A decimal as published: its text, value and precision.
#[derive(Debug, Clone, PartialEq)]
pub struct Decimal {
    /// As written (thousands separators removed).
    pub text: String,
    /// Its value.
    pub value: f64,
    /// Digits after the decimal point.
    pub decimals: u32,
    /// Significant digits: from the first non-zero digit to the last one
    /// written.
    pub significant: u32,
}

impl Decimal {
    /// Parses `-?[0-9]+(\.[0-9]+)?`, with `,` thousands separators allowed
    /// in the integer part ("8,192").
    pub fn parse(s: &str) -> Option<Decimal> {
        let t = s.trim();
        let neg = t.starts_with('-');
        let body = t.strip_prefix('-').unwrap_or(t);
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (body, None),
        };
        if int.is_empty() || int.starts_with(',') || int.ends_with(',') || int.contains(",,") {
            return None;
        }
        if int.contains(',') && int.split(',').skip(1).any(|g| g.len() != 3) {
            return None;
        }
        let int: String = int.chars().filter(|c| *c != ',').collect();
        let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        if !digits(&int) || frac.is_some_and(|f| !digits(f)) || t.len() > 40 {
            return None;
        }
        let text = match frac {
            Some(f) => format!("{}{int}.{f}", if neg { "-" } else { "" }),
            None => format!("{}{int}", if neg { "-" } else { "" }),
        };
        let value: f64 = text.parse().ok()?;
        let all: Vec<u8> = text.bytes().filter(u8::is_ascii_digit).collect();
        let significant = all
            .iter()
            .position(|d| *d != b'0')
            .map_or(0, |i| (all.len() - i) as u32);
        Some(Decimal {
            text,
            value,
            decimals: frac.map_or(0, |f| f.len() as u32),
            significant,
        })
    }

    /// Half a unit of the last digit, plus 1e-9.
    pub fn tolerance(&self) -> f64 {
        0.5 * 10f64.powi(-(self.decimals as i32)) + 1e-9
    }

    /// True if `actual` (in the published unit) rounds to this value.
    pub fn holds(&self, actual: f64) -> bool {
        actual.is_finite() && (actual - self.value).abs() <= self.tolerance()
    }

    /// The value as an integer, when it is one.
    pub fn as_u64(&self) -> Option<u64> {
        (self.decimals == 0 && self.value >= 0.0 && self.value < 9.0e15)
            .then_some(self.value as u64)
    }
}

/// Splits a phrase into words and separators-free tokens.
fn tokens(s: &str) -> Vec<&str> {
    s.split(|c: char| c.is_whitespace() || c == ';' || c == '(' || c == ')')
        .filter(|t| !t.is_empty())
        .collect()
}

fn trim_punct(t: &str) -> &str {
    t.trim_end_matches([',', ';', '.', ':'])
}

/// The 64-hex digests in a phrase (with or without `sha256:`), in order.
pub fn digests(s: &str) -> Vec<Sha256Digest> {
    tokens(s)
        .into_iter()
        .filter_map(|t| {
            let t = trim_punct(t);
            let hex = t.strip_prefix("sha256:").unwrap_or(t);
            (hex.len() == 64)
                .then(|| Sha256Digest::parse_hex(hex).ok())
                .flatten()
        })
        .collect()
}

/// Lower case, non-alphanumerics as single `-`: the id of a row label.
pub fn slug(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars().flat_map(|c| c.to_lowercase()) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        let d = Decimal::parse("8,192").unwrap();
        assert_eq!((d.value, d.decimals, d.significant), (8192.0, 0, 4));
        let d = Decimal::parse("0.460").unwrap();
        assert_eq!((d.decimals, d.significant), (3, 3));
        for bad in ["", "8,19", "1.", ".5", "1e3", "8,,192", ",8", "x"] {
            assert!(Decimal::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn phrases() {
        assert_eq!(slug("Model config SHA-256"), "model-config-sha-256");
        assert_eq!(slug("  Accelerator per engine "), "accelerator-per-engine");
        let h = "1".repeat(64);
        assert_eq!(digests(&format!("x image sha256:{h}, y")).len(), 1);
    }
}
