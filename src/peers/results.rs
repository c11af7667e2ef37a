//! Reading benchmark-client result files: vLLM's `bench serve` /
//! `benchmark_serving.py` JSON (one object, or several with
//! `--append-result`) and SGLang's `bench_serving` JSON Lines (one object per
//! line). Both keep the summary fields and, when saved (`--save-detailed`,
//! `--output-details`), one array per request attribute ("columnar": index
//! `i` of every array is request `i`).
//!
//! The file is streamed: per-request arrays go straight into vectors of
//! numbers, nothing is sized from a count the file declares, and the number
//! of values one file may hold is capped ([`MAX_VALUES`]), so memory stays
//! bounded whatever the input. Repeated keys are refused at any depth.
//! `NaN` and `Infinity` (which Python's `json` writes for non-finite floats)
//! are not JSON and are refused with the position.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, Visitor};

use super::errors::RequestError;
use super::json::{
    Budget, CountArray, Elem, ErrorsArray, NumArray, Ragged, RaggedArray, Scalar, ScalarSeed,
};

/// Most per-request values (array elements) one file may hold: 400 million
/// (3.2 GB as floats); a run of 1,000,000 requests of 128 tokens holds 131
/// million.
pub const MAX_VALUES: u64 = 400_000_000;
/// Most result objects one file may hold (SGLang appends one line per run).
pub const MAX_OBJECTS: usize = 100_000;

/// Why a result file could not be read (the tool could not do its job).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResultsError {
    /// The file could not be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The bytes are not JSON of the expected shape (truncated, `NaN`, an
    /// array of the wrong type, a repeated key, over the reading limit).
    #[error("{}: result {index}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Which result object (1-based).
        index: usize,
        /// serde_json's message, with line and column.
        message: String,
    },
    /// The file holds no result object.
    #[error("{}: no result object in the file", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// More result objects than [`MAX_OBJECTS`].
    #[error("{}: more than {limit} result objects in one file", path.display())]
    TooMany {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// Not a vLLM or SGLang result, or not the format asked for.
    #[error("{}: result {index}: {why}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// Which result object (1-based).
        index: usize,
        /// What is wrong.
        why: String,
    },
}

/// The per-request arrays of one result, as saved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arrays {
    /// `input_lens`: prompt tokens per request.
    pub input_lens: Option<Vec<f64>>,
    /// `output_lens`: output tokens per request (0 for a failed one).
    pub output_lens: Option<Vec<f64>>,
    /// `ttfts`: time to first token, seconds.
    pub ttfts: Option<Vec<f64>>,
    /// `latencies`: end-to-end latency, seconds (vLLM since it saves them).
    pub latencies: Option<Vec<f64>>,
    /// `start_times`: send time, seconds (vLLM, recent).
    pub start_times: Option<Vec<f64>>,
    /// `itls`: per request, the gaps between streamed chunks, seconds.
    pub itls: Option<Ragged>,
    /// `errors`: per request, true when it succeeded (empty string or null).
    pub success: Option<Vec<bool>>,
    /// `errors`: per request, what the entry says (success, a
    /// timeout the client marks as one, another failure).
    pub error_kinds: Option<Vec<RequestError>>,
    /// `generated_texts`: only counted.
    pub generated_texts: Option<usize>,
}

impl Arrays {
    /// `(key, length)` of every array present, in a fixed order.
    pub fn lengths(&self) -> Vec<(&'static str, usize)> {
        let mut v = Vec::new();
        let mut add = |k: &'static str, n: Option<usize>| {
            if let Some(n) = n {
                v.push((k, n));
            }
        };
        add("ttfts", self.ttfts.as_ref().map(Vec::len));
        add("itls", self.itls.as_ref().map(Ragged::len));
        add("input_lens", self.input_lens.as_ref().map(Vec::len));
        add("output_lens", self.output_lens.as_ref().map(Vec::len));
        add("latencies", self.latencies.as_ref().map(Vec::len));
        add("start_times", self.start_times.as_ref().map(Vec::len));
        add("errors", self.success.as_ref().map(Vec::len));
        add("generated_texts", self.generated_texts);
        v
    }
    /// True when no per-request array was saved.
    pub fn is_empty(&self) -> bool {
        self.lengths().is_empty()
    }
}

/// One result object: its top-level fields and its per-request arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultObject {
    /// Top-level fields other than the per-request arrays, in file order.
    pub fields: Vec<(String, Scalar)>,
    /// The per-request arrays.
    pub arrays: Arrays,
}

impl ResultObject {
    /// A top-level field by key.
    pub fn get(&self, key: &str) -> Option<&Scalar> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// A top-level number by key.
    pub fn num(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Scalar::num)
    }
}

thread_local! {
    static BUDGET_LEFT: Cell<u64> = const { Cell::new(MAX_VALUES) };
    static LIMIT: Cell<u64> = const { Cell::new(MAX_VALUES) };
    static ROWS: Cell<u64> = const { Cell::new(u64::MAX) };
}

impl<'de> Deserialize<'de> for ResultObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ObjectVisitor)
    }
}

struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = ResultObject;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a result object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResultObject, A::Error> {
        let mut left = BUDGET_LEFT.with(Cell::get);
        let out = read_fields(&mut map, &mut left);
        BUDGET_LEFT.with(|b| b.set(left));
        out
    }
}

fn num<'a, 'b>(key: &'static str, elem: Elem, budget: &'a mut Budget<'b>) -> NumArray<'a, 'b> {
    NumArray { key, elem, budget }
}

fn read_fields<'de, A: MapAccess<'de>>(
    map: &mut A,
    left: &mut u64,
) -> Result<ResultObject, A::Error> {
    let mut budget = Budget {
        left,
        limit: LIMIT.with(Cell::get),
        rows: ROWS.with(Cell::get),
    };
    let mut seen = BTreeSet::new();
    let mut r = ResultObject::default();
    while let Some(key) = map.next_key::<String>()? {
        if !seen.insert(key.clone()) {
            return Err(A::Error::custom(format!(
                "duplicate key {key:?} in the result object"
            )));
        }
        let a = &mut r.arrays;
        let b = &mut budget;
        match key.as_str() {
            "input_lens" => {
                a.input_lens = Some(map.next_value_seed(num("input_lens", Elem::Count, b))?)
            }
            "output_lens" => {
                a.output_lens = Some(map.next_value_seed(num("output_lens", Elem::Count, b))?)
            }
            "ttfts" => a.ttfts = Some(map.next_value_seed(num("ttfts", Elem::Float, b))?),
            "latencies" => {
                a.latencies = Some(map.next_value_seed(num("latencies", Elem::Float, b))?)
            }
            "start_times" => {
                a.start_times = Some(map.next_value_seed(num("start_times", Elem::Float, b))?)
            }
            "itls" => {
                a.itls = Some(map.next_value_seed(RaggedArray {
                    key: "itls",
                    budget: b,
                })?)
            }
            "errors" => {
                let kinds = map.next_value_seed(ErrorsArray { budget: b })?;
                a.success = Some(kinds.iter().map(|k| k.is_none()).collect());
                a.error_kinds = Some(kinds);
            }
            "generated_texts" => {
                a.generated_texts = Some(map.next_value_seed(CountArray {
                    key: "generated_texts",
                    budget: b,
                })?)
            }
            _ => {
                let v = map.next_value_seed(ScalarSeed)?;
                r.fields.push((key, v));
            }
        }
    }
    Ok(r)
}

/// Reads every result object of a file (streamed). `origin` names the file
/// in errors.
pub fn read_results(path: &Path) -> Result<Vec<ResultObject>, ResultsError> {
    let f = std::fs::File::open(path).map_err(|source| ResultsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_results(std::io::BufReader::with_capacity(1 << 20, f), path)
}

/// Reads every result object from a reader; `path` names it in errors.
pub fn parse_results<R: Read>(reader: R, path: &Path) -> Result<Vec<ResultObject>, ResultsError> {
    parse_results_limited(reader, path, MAX_VALUES, u64::MAX)
}

/// [`parse_results`] with another limit on the per-request values, and on
/// the entries of each per-request array (`max_requests`).
pub fn parse_results_limited<R: Read>(
    reader: R,
    path: &Path,
    max_values: u64,
    max_requests: u64,
) -> Result<Vec<ResultObject>, ResultsError> {
    BUDGET_LEFT.with(|b| b.set(max_values));
    LIMIT.with(|l| l.set(max_values));
    ROWS.with(|l| l.set(max_requests));
    let stream = serde_json::Deserializer::from_reader(reader).into_iter::<ResultObject>();
    let mut out = Vec::new();
    for item in stream {
        let index = out.len() + 1;
        match item {
            Ok(o) => {
                if out.len() == MAX_OBJECTS {
                    return Err(ResultsError::TooMany {
                        path: path.to_path_buf(),
                        limit: MAX_OBJECTS,
                    });
                }
                out.push(o);
            }
            Err(e) if e.is_io() => {
                return Err(ResultsError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::other(e.to_string()),
                })
            }
            Err(e) => {
                let mut message = e.to_string();
                if e.is_eof() {
                    message.push_str(" (the file is truncated)");
                } else if message.contains("expected value") {
                    message.push_str(
                        " (not JSON here; NaN and Infinity, which Python writes for non-finite floats, are not JSON)",
                    );
                }
                return Err(ResultsError::Json {
                    path: path.to_path_buf(),
                    index,
                    message,
                });
            }
        }
    }
    if out.is_empty() {
        return Err(ResultsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<ResultObject>, ResultsError> {
        parse_results(s.as_bytes(), Path::new("t.json"))
    }

    #[test]
    fn arrays_and_fields() {
        let r = parse(r#"{"completed": 2, "ttfts": [0.1, 0.2], "itls": [[0.01, 0.02], []], "errors": ["", null], "output_lens": [3, 1.0], "x": {"a": [1]}}
{"completed": 1}"#)
        .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].num("completed"), Some(2.0));
        assert_eq!(r[0].arrays.ttfts, Some(vec![0.1, 0.2]));
        let itls = r[0].arrays.itls.as_ref().unwrap();
        assert_eq!(itls.row(0), Some(&[0.01, 0.02][..]));
        assert_eq!(itls.row(1), Some(&[] as &[f64]));
        assert_eq!(r[0].arrays.success, Some(vec![true, true]));
        assert_eq!(r[0].get("x"), Some(&Scalar::Object));
    }

    /// Past [`RAGGED_KEPT_VALUES`] inter-token latencies, each request
    /// keeps its count, sum and sign only: the same sums, no values, and
    /// the ITL statistics said not recomputed rather than computed from a
    /// part.
    #[test]
    fn many_itls_are_kept_as_sums() {
        use crate::peers::json::RAGGED_KEPT_VALUES;
        let per = 1000;
        let rows = RAGGED_KEPT_VALUES / per + 2;
        let row = format!("[{}0.5]", "0.25,".repeat(per - 1));
        let mut text = String::from("{\"itls\": [");
        for i in 0..rows {
            if i > 0 {
                text.push(',');
            }
            text.push_str(if i == 3 { "[0.5,-0.25]" } else { &row });
        }
        text.push_str("]}");
        let r = parse(&text).unwrap();
        let itls = r[0].arrays.itls.as_ref().unwrap();
        assert!(!itls.values_kept());
        assert_eq!(itls.len(), rows);
        assert_eq!(itls.row(0), None);
        assert_eq!(itls.count(rows - 1), per);
        assert_eq!(itls.sum(rows - 1), 0.25 * (per - 1) as f64 + 0.5);
        assert!(itls.has_negative(3) && !itls.has_negative(4));
        let small = parse("{\"itls\": [[0.5,-0.25], [1]]}").unwrap();
        let s = small[0].arrays.itls.as_ref().unwrap();
        assert!(s.values_kept());
        assert_eq!((s.sum(0), s.count(0), s.has_negative(0)), (0.25, 2, true));
    }

    #[test]
    fn a_per_request_array_past_its_requests_is_refused_as_it_streams() {
        for key in ["ttfts", "itls", "errors", "generated_texts"] {
            let entry = match key {
                "itls" => "[]",
                "errors" => "\"\"",
                "generated_texts" => "\"t\"",
                _ => "0.5",
            };
            let text = format!("{{\"{key}\": [{}]}}", [entry; 4].join(","));
            let err = parse_results_limited(text.as_bytes(), Path::new("t.json"), 1000, 3)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key}: more than 3 requests in one file")),
                "{err}"
            );
            assert!(parse_results_limited(text.as_bytes(), Path::new("t.json"), 1000, 4).is_ok());
        }
    }

    #[test]
    fn bounded_by_the_value_limit() {
        // An endless array: reading stops at the limit, memory stays small.
        let head = std::io::Cursor::new(b"{\"ttfts\": [".to_vec());
        let body = std::io::repeat(b'0').take(0); // placeholder, replaced below
        let _ = body;
        struct Endless(bool);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = if (i % 2 == 0) ^ self.0 { b'0' } else { b',' };
                }
                if buf.len() % 2 == 1 {
                    self.0 = !self.0;
                }
                Ok(buf.len())
            }
        }
        let r = parse_results_limited(head.chain(Endless(false)), Path::new("t"), 1000, u64::MAX);
        let e = r.unwrap_err().to_string();
        assert!(e.contains("more than 1000 per-request values"), "{e}");
    }

    #[test]
    fn malformed() {
        for bad in [
            r#"{"ttfts": [0.1, "a"]}"#,
            r#"{"ttfts": [NaN]}"#,
            r#"{"ttfts": [0.1"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"x": {"b": 1, "b": 1}}"#,
            r#"{"output_lens": [-1]}"#,
            r#"{"output_lens": [1.5]}"#,
            r#"{"itls": [0.1]}"#,
            r#"[1, 2]"#,
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
