//! Finding request records in files the qualification does not declare as
//! client records or journals (`run.undeclared`).
//!
//! Every line of every such file is looked at, not only the first: a second
//! copy of a point's records behind a first line `{"comment": "raw client
//! log"}` is evidence left out of the table as much as one that starts with
//! a record. Memory is one line (at most [`MAX_LINE`] bytes); a longer line
//! is not read whole, but when its first [`MAX_LINE`] bytes begin like a
//! record (a JSON object naming `"request_id"` and `"point"`) the file is
//! reported too, since other readers read lines of any length.

use crate::run::records::MAX_LINE;

/// The point named by a line that looks like a client record or a journal
/// event (a JSON object with string `request_id` and `point` and one of
/// `sent_at`, `status`, `event` or `at`), if it does.
pub fn records_point(line: &[u8]) -> Option<String> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if line[start] != b'{' {
        return None;
    }
    // A cheap filter before parsing: a line without a backslash spells its
    // keys literally, so a record among them names "request_id".
    if !line.contains(&b'\\') && !contains(line, b"\"request_id\"") {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let o = v.as_object()?;
    o.get("request_id")?.as_str()?;
    let point = o.get("point")?.as_str()?;
    let is_client = o.contains_key("sent_at") || o.contains_key("status");
    let is_event = o.contains_key("event") || o.contains_key("at");
    (is_client || is_event).then(|| point.to_string())
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// What a sniffer found: the first record-shaped line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its line number (from 1).
    pub line: u64,
    /// The point it names, or `None` for a line longer than [`MAX_LINE`]
    /// that begins like a record.
    pub point: Option<String>,
}

/// Looks at every line of a stream fed to it in chunks, until the first
/// line shaped like a request record.
#[derive(Debug, Default)]
pub struct RecordSniffer {
    buf: Vec<u8>,
    overlong: bool,
    line: u64,
    found: Option<Found>,
}

impl RecordSniffer {
    /// A sniffer at the start of a file.
    pub fn new() -> Self {
        RecordSniffer::default()
    }

    /// Takes the next bytes of the file.
    pub fn feed(&mut self, mut data: &[u8]) {
        while self.found.is_none() && !data.is_empty() {
            match data.iter().position(|b| *b == b'\n') {
                Some(i) => {
                    self.push(&data[..i]);
                    self.end_line();
                    data = &data[i + 1..];
                }
                None => {
                    self.push(data);
                    return;
                }
            }
        }
    }

    fn push(&mut self, part: &[u8]) {
        if self.overlong {
            return;
        }
        if self.buf.len() + part.len() > MAX_LINE {
            // Keep the start, to tell whether it begins like a record.
            let room = MAX_LINE - self.buf.len();
            self.buf.extend_from_slice(&part[..room]);
            self.overlong = true;
            return;
        }
        self.buf.extend_from_slice(part);
    }

    fn end_line(&mut self) {
        self.line += 1;
        let mut l: &[u8] = &self.buf;
        if self.line == 1 {
            l = l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l);
        }
        l = l.strip_suffix(b"\r").unwrap_or(l);
        if self.overlong {
            let begins = l
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| *b == b'{');
            if begins && contains(l, b"\"request_id\"") && contains(l, b"\"point\"") {
                self.found = Some(Found {
                    line: self.line,
                    point: None,
                });
            }
        } else if let Some(point) = records_point(l) {
            self.found = Some(Found {
                line: self.line,
                point: Some(point),
            });
        }
        self.buf.clear();
        self.overlong = false;
    }

    /// True once a record-shaped line was seen (later bytes are ignored).
    pub fn done(&self) -> bool {
        self.found.is_some()
    }

    /// The end of the file: the first record-shaped line, if any.
    pub fn finish(mut self) -> Option<Found> {
        if self.found.is_none() && (!self.buf.is_empty() || self.overlong) {
            self.end_line();
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REC: &str = r#"{"request_id":"r1","point":"rate-1","warmup":false,"status":"ok","sent_at":1,"first_token_at":2,"finished_at":3,"input_tokens":1,"output_tokens":2}"#;

    fn sniff_chunks(data: &[u8], chunk: usize) -> Option<Found> {
        let mut s = RecordSniffer::new();
        for c in data.chunks(chunk.max(1)) {
            s.feed(c);
        }
        s.finish()
    }

    #[test]
    fn finds_a_record_on_any_line_in_any_chunking() {
        let text = format!("{{\"comment\": \"raw client log\"}}\nnot json\n\n{REC}\n");
        for chunk in [1, 2, 7, 64, 1 << 16] {
            assert_eq!(
                sniff_chunks(text.as_bytes(), chunk),
                Some(Found {
                    line: 4,
                    point: Some("rate-1".into())
                }),
                "chunk {chunk}"
            );
        }
        // No newline at the end, CRLF, a BOM on the first line.
        assert_eq!(sniff_chunks(REC.as_bytes(), 5).unwrap().line, 1);
        let crlf = format!("x\r\n{REC}\r\n");
        assert_eq!(sniff_chunks(crlf.as_bytes(), 3).unwrap().line, 2);
        let bom = format!("\u{feff}{REC}\n");
        assert_eq!(sniff_chunks(bom.as_bytes(), 3).unwrap().line, 1);
        // Escaped key names are still the key names.
        let escaped = REC.replace("request_id", "request\\u005fid");
        assert_eq!(sniff_chunks(escaped.as_bytes(), 9).unwrap().line, 1);
    }

    #[test]
    fn other_lines_are_not_records() {
        for text in [
            "{\"request_id\":\"a\",\"input_tokens\":1,\"max_tokens\":2}\n", // a workload line
            "{\"request_id\":\"a\",\"status\":\"ok\"}\n",                   // no point
            "[1, 2]\n{}\n",
            "",
        ] {
            assert_eq!(sniff_chunks(text.as_bytes(), 4), None, "{text}");
        }
    }

    #[test]
    fn a_long_line_does_not_hide_the_lines_after_it() {
        let mut text = vec![b'x'; MAX_LINE * 2 + 5];
        text.push(b'\n');
        text.extend_from_slice(REC.as_bytes());
        let f = sniff_chunks(&text, 1 << 16).unwrap();
        assert_eq!(f.line, 2);
        // A record padded past the line limit is reported as one.
        let padded = REC.replace(
            "\"warmup\"",
            &format!("\"pad\":\"{}\",\"warmup\"", "y".repeat(MAX_LINE)),
        );
        let f = sniff_chunks(padded.as_bytes(), 1 << 16).unwrap();
        assert_eq!(
            f,
            Found {
                line: 1,
                point: None
            }
        );
    }
}
