//! The row layouts `results check RAW --row ROWS` reads, and which row of a
//! file is the one for the raw client file. Two layouts are known:
//!
//! - [`RowLayout::ProcessResult`]: the flat row SemiAnalysisAI/InferenceX
//!   `utils/process_result.py` writes (`agg_<result>.json`): one object
//!   with the environment (`hw`, `tp`, `conc`, `model`, ...) and the
//!   numbers (`tput_per_gpu`, `mean_ttft`, ...) side by side, or an array
//!   of such objects.
//! - [`RowLayout::AppDatabase`]: the rows SemiAnalysisAI/InferenceX-app
//!   publishes for its database (`packages/db/data/supplemental-bmk.json`,
//!   read by `packages/db/src/ingest-supplemental.ts`, interface
//!   `SupplementalBmk`): an array of objects with `model`, `hw`,
//!   `framework`, `precision`, `spec_decoding`, `tp`, `ep`, `conc`,
//!   `dp_attention`, `isl`, `osl`, `image`, `date`, `disagg`,
//!   `is_multinode`, ... and the numbers, under the same names as the flat
//!   row's, nested in a `metrics` object.
//!
//! Anything else is [`RowError::Layout`], which names the known layouts: a
//! file of another shape is never read as a row whose every number is
//! missing.

use serde_json::{Map, Value};

use super::json::Scalar;
use super::results::ResultObject;

/// Why a row file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RowError {
    /// The row file could not be read (missing, unreadable, over
    /// [`MAX_ROW_FILE`]).
    #[error("{path}: cannot read: {message}")]
    Read {
        /// The file.
        path: String,
        /// The cause, as the reader states it.
        message: String,
    },
    /// Not JSON, or a repeated key.
    #[error("{path}: not a JSON row: {message}")]
    Json {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Not a row layout this tool knows.
    #[error("{path}: {why}; the row layouts read are {KNOWN_LAYOUTS}")]
    Layout {
        /// The file.
        path: String,
        /// What was found instead.
        why: String,
    },
    /// A known layout, but no single row for the raw file.
    #[error("{path}: {why}")]
    Shape {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// The layouts, as the [`RowError::Layout`] message names them.
pub const KNOWN_LAYOUTS: &str = "(1) InferenceX utils/process_result.py rows (agg_*.json: \
one object with tput_per_gpu, conc, model, ... at its top level, or an array of them) and \
(2) InferenceX-app database rows (packages/db/data/supplemental-bmk.json: an array of objects \
with model, hw, framework, precision, tp, conc, isl, osl, ... and the numbers in a \"metrics\" object)";

/// Largest row file read.
pub const MAX_ROW_FILE: u64 = 64 << 20;

/// Which layout a row came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowLayout {
    /// `utils/process_result.py`'s flat row.
    ProcessResult,
    /// InferenceX-app's database row (numbers under `metrics`).
    AppDatabase,
}

impl RowLayout {
    /// How reports name the layout.
    pub fn name(self) -> &'static str {
        match self {
            RowLayout::ProcessResult => "InferenceX process_result.py row",
            RowLayout::AppDatabase => "InferenceX-app database row",
        }
    }
}

/// The row chosen for the raw file.
#[derive(Debug, Clone)]
pub struct Row {
    /// Its layout.
    pub layout: RowLayout,
    /// The fields beside the numbers (for [`RowLayout::ProcessResult`] the
    /// whole row, numbers included: the layout does not separate them).
    pub fields: Map<String, Value>,
    /// The published numbers: the `metrics` object, or for
    /// [`RowLayout::ProcessResult`] the whole row.
    pub metrics: Map<String, Value>,
    /// Where it was: `(1-based element, elements)` of an array.
    pub position: Option<(usize, usize)>,
}

impl Row {
    /// A row object in the process_result.py layout, taken as it is.
    pub fn flat(m: Map<String, Value>) -> Row {
        Row {
            layout: RowLayout::ProcessResult,
            fields: m.clone(),
            metrics: m,
            position: None,
        }
    }

    /// Where the row was, for details: "element 4 of 8, InferenceX-app
    /// database row".
    pub fn described(&self) -> String {
        match self.position {
            Some((i, n)) => format!("element {i} of {n}, {}", self.layout.name()),
            None => self.layout.name().to_string(),
        }
    }
}

/// What the caller says about the row beyond the raw file: `--isl` and
/// `--osl`, used when several rows match model and concurrency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowQuery {
    /// The input sequence length of the row wanted.
    pub isl: Option<u64>,
    /// The output sequence length of the row wanted.
    pub osl: Option<u64>,
}

/// The layout of one row object, or why it has none.
fn layout_of(m: &Map<String, Value>) -> Result<RowLayout, String> {
    match m.get("metrics") {
        Some(Value::Object(_)) => Ok(RowLayout::AppDatabase),
        Some(other) => Err(format!("\"metrics\" is {}, not an object", kind(other))),
        None if m.contains_key("tput_per_gpu") => Ok(RowLayout::ProcessResult),
        None => {
            let keys: Vec<&str> = m.keys().take(8).map(String::as_str).collect();
            Err(format!(
                "an object with neither a \"metrics\" object nor tput_per_gpu (keys: {}{})",
                keys.join(", "),
                if m.len() > 8 { ", ..." } else { "" }
            ))
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn into_row(mut m: Map<String, Value>, layout: RowLayout, position: Option<(usize, usize)>) -> Row {
    match layout {
        RowLayout::ProcessResult => Row {
            position,
            ..Row::flat(m)
        },
        RowLayout::AppDatabase => {
            let metrics = match m.remove("metrics") {
                Some(Value::Object(x)) => x,
                _ => Map::new(), // layout_of saw an object
            };
            Row {
                layout,
                fields: m,
                metrics,
                position,
            }
        }
    }
}

fn num_field(m: &Map<String, Value>, k: &str) -> Option<f64> {
    m.get(k).and_then(Value::as_f64)
}

/// Picks the row for `raw` out of a parsed row file.
///
/// One object is the row. In an array (every element the same layout) the
/// row is the one element whose `conc` is `int(max_concurrency)` and, in
/// the app layout, whose `model` is the raw `model_id` (in the flat layout
/// `model` decides only when several match, as before); when several still
/// match, `--isl`/`--osl` ([`RowQuery`]) decide, and when given they must
/// hold. No match, or several, is [`RowError::Shape`] naming the
/// candidates.
pub fn select_row(
    v: Value,
    raw: &ResultObject,
    query: &RowQuery,
    path: &str,
) -> Result<Row, RowError> {
    let layout_err = |why: String| RowError::Layout {
        path: path.to_string(),
        why,
    };
    let shape = |why: String| RowError::Shape {
        path: path.to_string(),
        why,
    };
    let rows = match v {
        Value::Object(m) => {
            let layout = layout_of(&m).map_err(layout_err)?;
            return Ok(into_row(m, layout, None));
        }
        Value::Array(rows) => rows,
        other => return Err(layout_err(format!("{} at the top level", kind(&other)))),
    };
    let n = rows.len();
    let mut objects = Vec::with_capacity(n);
    let mut layout = None;
    for (i, r) in rows.into_iter().enumerate() {
        let Value::Object(m) = r else {
            return Err(layout_err(format!(
                "element {} of the array is {}, not a row object",
                i + 1,
                kind(&r)
            )));
        };
        let l = layout_of(&m).map_err(|w| layout_err(format!("element {}: {w}", i + 1)))?;
        match layout {
            None => layout = Some(l),
            Some(first) if first != l => {
                return Err(layout_err(format!(
                    "element {} is an {} but element 1 an {}: one file holds one layout",
                    i + 1,
                    l.name(),
                    first.name()
                )))
            }
            Some(_) => {}
        }
        objects.push((i + 1, m));
    }
    let Some(layout) = layout else {
        return Err(layout_err("an empty array".into()));
    };
    let conc = raw.num("max_concurrency").map(f64::trunc);
    let Some(c) = conc else {
        return Err(shape(
            "the raw file has no numeric max_concurrency to choose a row by".into(),
        ));
    };
    let model = match raw.get("model_id") {
        Some(Scalar::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let same_model = |m: &Map<String, Value>| match (m.get("model"), &model) {
        (Some(Value::String(a)), Some(b)) => a == b,
        _ => false,
    };
    let mut matches: Vec<(usize, Map<String, Value>)> = objects
        .into_iter()
        .filter(|(_, m)| num_field(m, "conc") == Some(c))
        .collect();
    let mut by = vec![format!("conc {c}")];
    if layout == RowLayout::AppDatabase || matches.len() > 1 {
        let Some(model) = &model else {
            return Err(shape(format!(
                "{} rows have conc {c}, and the raw file has no model_id to choose by",
                matches.len()
            )));
        };
        matches.retain(|(_, m)| same_model(m));
        by.push(format!("model {model:?}"));
    }
    if matches.len() > 1 || query.isl.is_some() || query.osl.is_some() {
        for (key, want) in [("isl", query.isl), ("osl", query.osl)] {
            if let Some(w) = want {
                matches.retain(|(_, m)| num_field(m, key) == Some(w as f64));
                by.push(format!("{key} {w}"));
            }
        }
    }
    match matches.len() {
        1 => {
            let (i, m) = matches.pop().expect("one");
            Ok(into_row(m, layout, Some((i, n))))
        }
        0 => Err(shape(format!(
            "no row of the {n} has {} (the raw file's int(max_concurrency) and model_id{})",
            by.join(", "),
            if query.isl.is_some() || query.osl.is_some() {
                ", and --isl/--osl"
            } else {
                ""
            }
        ))),
        k => {
            let show = |(i, m): &(usize, Map<String, Value>)| {
                let f = |key: &str| m.get(key).map_or("-".to_string(), |v| v.to_string());
                format!(
                    "element {i}: isl {} osl {} hw {} framework {} precision {} tp {}",
                    f("isl"),
                    f("osl"),
                    f("hw"),
                    f("framework"),
                    f("precision"),
                    f("tp")
                )
            };
            let list: Vec<String> = matches.iter().take(6).map(show).collect();
            Err(shape(format!(
                "{k} rows have {} ({}{}); pass --isl and --osl, or give a file with the one row",
                by.join(", "),
                list.join("; "),
                if k > 6 { "; ..." } else { "" }
            )))
        }
    }
}

/// Reads a row file and picks the row for `raw` ([`select_row`]).
pub fn read_row(
    path: &std::path::Path,
    raw: &ResultObject,
    query: &RowQuery,
) -> Result<Row, RowError> {
    let name = path.display().to_string();
    let bytes = crate::capped::read_capped(path, MAX_ROW_FILE).map_err(|e| RowError::Read {
        path: name.clone(),
        message: e.to_string(),
    })?;
    parse_row(&bytes, raw, query, &name)
}

/// [`read_row`] on bytes already read; `name` names them in errors.
pub fn parse_row(
    bytes: &[u8],
    raw: &ResultObject,
    query: &RowQuery,
    name: &str,
) -> Result<Row, RowError> {
    let json_err = |e: serde_json::Error| RowError::Json {
        path: name.to_string(),
        message: e.to_string(),
    };
    crate::strictjson::reject_duplicate_json_keys(bytes).map_err(json_err)?;
    let v: Value = serde_json::from_slice(bytes).map_err(json_err)?;
    select_row(v, raw, query, name)
}
