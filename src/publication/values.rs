//! Values as a write-up states them: decimals with their precision, units,
//! English number words, hex digests and commits, and the phrases of the
//! pinned-inputs rows ("vLLM 0.29.0+rocm100, image sha256:…", "eight GPUs,
//! tensor parallelism 8", "10 s TTFT, 0.3 s TPOT; first-token deadline
//! 8.5 s", "8,192 input tokens, …"). Values are parsed, never compared as
//! strings.

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

/// A count in digits or English words up to sixteen ("eight", "8").
pub fn count(word: &str) -> Option<u64> {
    const WORDS: [&str; 17] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    ];
    let w = word.trim().to_ascii_lowercase();
    if let Some(i) = WORDS.iter().position(|x| *x == w) {
        return Some(i as u64);
    }
    Decimal::parse(&w).and_then(|d| d.as_u64())
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

/// A 40-hex commit id, when the phrase is one (or holds exactly one).
pub fn commit(s: &str) -> Option<String> {
    let found: Vec<String> = tokens(s)
        .into_iter()
        .map(trim_punct)
        .filter(|t| t.len() == 40 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(|t| t.to_ascii_lowercase())
        .collect();
    (found.len() == 1).then(|| found[0].clone())
}

/// The number right before `word` (e.g. `96` in "96 safetensors shards"),
/// as published.
pub fn number_before(s: &str, word: &str) -> Option<Decimal> {
    let t = tokens(s);
    let i = t
        .iter()
        .position(|x| trim_punct(x).eq_ignore_ascii_case(word))?;
    (i > 0)
        .then(|| Decimal::parse(trim_punct(t[i - 1])))
        .flatten()
}

/// The number right after the words `words` (e.g. `1729` after "seed").
pub fn number_after(s: &str, words: &[&str]) -> Option<Decimal> {
    let t: Vec<&str> = tokens(s).into_iter().map(trim_punct).collect();
    (0..t.len()).find_map(|i| {
        let m = words
            .iter()
            .enumerate()
            .all(|(k, w)| t.get(i + k).is_some_and(|x| x.eq_ignore_ascii_case(w)));
        m.then(|| t.get(i + words.len()).and_then(|x| Decimal::parse(x)))
            .flatten()
    })
}

/// The count right before `word` in digits or words ("eight GPUs").
pub fn count_before(s: &str, word: &str) -> Option<(u64, String)> {
    let t = tokens(s);
    let i = t
        .iter()
        .position(|x| trim_punct(x).eq_ignore_ascii_case(word))?;
    if i == 0 {
        return None;
    }
    let w = trim_punct(t[i - 1]);
    count(w).map(|n| (n, w.to_string()))
}

/// A duration with its unit ("10 s", "0.3 s", "250 ms") right before the
/// word `label`, or right after it ("deadline 8.5 s"): the decimal as
/// published and the unit's factor to seconds.
pub fn seconds_near(s: &str, label: &str) -> Option<(Decimal, f64)> {
    let t: Vec<&str> = tokens(s).into_iter().map(trim_punct).collect();
    let unit = |u: &str| match u {
        "s" | "sec" | "second" | "seconds" => Some(1.0),
        "ms" => Some(0.001),
        _ => None,
    };
    for i in 0..t.len() {
        if !t[i].eq_ignore_ascii_case(label) {
            continue;
        }
        // "10 s TTFT"
        if i >= 2 {
            if let (Some(d), Some(f)) = (Decimal::parse(t[i - 2]), unit(t[i - 1])) {
                return Some((d, f));
            }
        }
        // "deadline 8.5 s"
        if let (Some(d), Some(f)) = (
            t.get(i + 1).and_then(|x| Decimal::parse(x)),
            t.get(i + 2).and_then(|x| unit(x)),
        ) {
            return Some((d, f));
        }
    }
    None
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
        assert_eq!(count("eight"), Some(8));
        assert_eq!(count("Sixteen"), Some(16));
        assert_eq!(count("seventeen"), None);
        assert_eq!(
            count_before(
                "AMD Instinct MI355X, eight GPUs, tensor parallelism 8",
                "GPUs"
            )
            .unwrap()
            .0,
            8
        );
        assert_eq!(
            number_after(
                "AMD Instinct MI355X, eight GPUs, tensor parallelism 8",
                &["tensor", "parallelism"]
            )
            .unwrap()
            .value,
            8.0
        );
        assert_eq!(
            number_before("96 safetensors shards; SHA-256 …", "safetensors")
                .unwrap()
                .value,
            96.0
        );
        let (d, f) =
            seconds_near("10 s TTFT, 0.3 s TPOT; first-token deadline 8.5 s", "TTFT").unwrap();
        assert_eq!((d.value, f), (10.0, 1.0));
        let (d, _) = seconds_near(
            "10 s TTFT, 0.3 s TPOT; first-token deadline 8.5 s",
            "deadline",
        )
        .unwrap();
        assert_eq!(d.value, 8.5);
        assert_eq!(slug("Model config SHA-256"), "model-config-sha-256");
        assert_eq!(slug("  Accelerator per engine "), "accelerator-per-engine");
        let h = "1".repeat(64);
        assert_eq!(digests(&format!("x image sha256:{h}, y")).len(), 1);
        assert!(commit("0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c").is_some());
    }
}
