//! InferenceX aggregated rows (`agg_<result>.json`, or a row of the
//! published arrays) recomputed from the raw client file, by the rules of
//! SemiAnalysisAI/InferenceX `utils/process_result.py` (read at commits
//! 00e51cc and 77f3e68; see docs/peers.md):
//!
//! - `tput_per_gpu = total_token_throughput / gpus`; single node: `gpus` is
//!   the row's `tp`; multinode: `num_prefill_gpu + num_decode_gpu`.
//! - `output_tput_per_gpu = output_throughput / gpus` (multinode: decode
//!   GPUs); `input_tput_per_gpu = (total_token_throughput -
//!   output_throughput) / gpus` (multinode: prefill GPUs; newer rows only).
//! - `conc = int(max_concurrency)`, `model = model_id`.
//! - every raw key ending in `ms`: `row[key.replace("_ms", "")] = value /
//!   1000` (seconds); every raw key containing `tpot`:
//!   `row[key.replace("_ms", "").replace("tpot", "intvty")] = 1000 / value`
//!   (00e51cc) or `1000 / (value + 1e-8)` (77f3e68); either rule passes and
//!   the detail says which.
//!
//! Row values are compared with the rounding the row shows: within half a
//! unit of the last decimal digit as written (Python writes the shortest
//! repr of a float, so an unrounded row is compared to ~1e-15), and never
//! looser than a relative 1e-9.

use serde_json::{json, Map, Value};

use super::results::ResultObject;
use crate::report::Check;

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
    /// Not a row object or an array of rows, or no row for the raw file.
    #[error("{path}: {why}")]
    Shape {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// Largest row file read.
pub const MAX_ROW_FILE: u64 = 64 << 20;

/// Picks the row for `raw` out of a parsed row file: the object itself, or
/// the one element of an array whose `conc` equals `int(max_concurrency)`
/// (and whose `model` is the raw `model_id`, when several match).
pub fn select_row(
    v: Value,
    raw: &ResultObject,
    path: &str,
) -> Result<Map<String, Value>, RowError> {
    let shape = |why: String| RowError::Shape {
        path: path.to_string(),
        why,
    };
    match v {
        Value::Object(m) => Ok(m),
        Value::Array(rows) => {
            let conc = raw.num("max_concurrency");
            let model = raw.get("model_id");
            let matches: Vec<Map<String, Value>> = rows
                .into_iter()
                .filter_map(|r| match r {
                    Value::Object(m) => Some(m),
                    _ => None,
                })
                .filter(|m| {
                    conc.is_some() && m.get("conc").and_then(Value::as_f64) == conc.map(f64::trunc)
                })
                .collect();
            let matches = if matches.len() > 1 {
                let by_model: Vec<_> = matches
                    .into_iter()
                    .filter(|m| match (m.get("model"), model) {
                        (Some(Value::String(a)), Some(super::json::Scalar::Str(b))) => a == b,
                        _ => false,
                    })
                    .collect();
                by_model
            } else {
                matches
            };
            match matches.len() {
                1 => Ok(matches.into_iter().next().expect("one")),
                0 => Err(shape(format!(
                    "no row has conc equal to the raw file's max_concurrency ({conc:?})"
                ))),
                k => Err(shape(format!(
                    "{k} rows match the raw file's max_concurrency and model; give the one row"
                ))),
            }
        }
        _ => Err(shape("not a row object or an array of rows".into())),
    }
}

/// Reads a row file (`agg_*.json`: one row, or an array of rows) and
/// picks the row for `raw` ([`select_row`]).
pub fn read_row(
    path: &std::path::Path,
    raw: &ResultObject,
) -> Result<Map<String, Value>, RowError> {
    let name = path.display().to_string();
    let bytes = crate::manifest::read_capped(path, MAX_ROW_FILE).map_err(|e| RowError::Read {
        path: name.clone(),
        message: e.to_string(),
    })?;
    parse_row(&bytes, raw, &name)
}

/// [`read_row`] on bytes already read; `name` names them in errors.
pub fn parse_row(
    bytes: &[u8],
    raw: &ResultObject,
    name: &str,
) -> Result<Map<String, Value>, RowError> {
    let json_err = |e: serde_json::Error| RowError::Json {
        path: name.to_string(),
        message: e.to_string(),
    };
    crate::strictjson::reject_duplicate_json_keys(bytes).map_err(json_err)?;
    let v: Value = serde_json::from_slice(bytes).map_err(json_err)?;
    select_row(v, raw, name)
}

/// Half a unit of the last decimal digit of `x` as Python writes it
/// (shortest repr).
fn shown_tolerance(x: f64) -> f64 {
    let s = format!("{x:?}");
    let (mant, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (s.clone(), 0),
    };
    let decimals = mant.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    0.5 * 10f64.powi(exp - decimals)
}

fn row_close(expected: f64, row: f64) -> bool {
    expected == row
        || (expected - row).abs() <= shown_tolerance(row).max(1e-9 * expected.abs().max(row.abs()))
}

fn num_check(id: String, formula: String, expected: f64, row: Option<&Value>, key: &str) -> Check {
    match row {
        None => Check::fail(
            id,
            format!("{key} = {formula} = {expected}, but the row has no {key}"),
        ),
        Some(Value::Number(n)) => {
            let r = n.as_f64().unwrap_or(f64::NAN);
            let ok = row_close(expected, r);
            let detail = if ok {
                format!("{key} = {formula} = {expected}; the row has {r}")
            } else {
                format!("{key} = {formula} = {expected}, but the row has {r} (compared at the row's rounding, ±{})", shown_tolerance(r))
            };
            Check::outcome(id, ok, detail).with_values(json!(expected), json!(r))
        }
        Some(other) => Check::fail(id, format!("{key} is {other} in the row, not a number")),
    }
}

/// The GPU counts the rules divide by: `(total, decode, prefill, how)`.
fn gpus(row: &Map<String, Value>, flag: Option<u64>) -> Result<(f64, f64, f64, String), String> {
    let g = |k: &str| row.get(k).and_then(Value::as_f64).filter(|v| *v > 0.0);
    let multinode = row
        .get("is_multinode")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if multinode {
        let (p, d) = (g("num_prefill_gpu"), g("num_decode_gpu"));
        return match (p, d, flag) {
            (Some(p), Some(d), Some(n)) if (p + d) as u64 != n => Err(format!(
                "--gpus {n} but the row's num_prefill_gpu + num_decode_gpu is {}",
                p + d
            )),
            (Some(p), Some(d), _) => Ok((
                p + d,
                d,
                p,
                format!("multinode: num_prefill_gpu {p} + num_decode_gpu {d}"),
            )),
            _ => Err("a multinode row needs positive num_prefill_gpu and num_decode_gpu".into()),
        };
    }
    match (flag, g("tp")) {
        (Some(n), _) => Ok((n as f64, n as f64, n as f64, format!("--gpus {n}"))),
        (None, Some(tp)) => Ok((
            tp,
            tp,
            tp,
            format!("the row's own tp ({tp}); pass --gpus N to check it against your count"),
        )),
        (None, None) => Err("the row has no positive tp and --gpus was not given".into()),
    }
}

/// Checks an aggregated row against the raw client result it came from.
pub fn check_row(
    raw: &ResultObject,
    row: &Map<String, Value>,
    flag_gpus: Option<u64>,
) -> Vec<Check> {
    let mut out = Vec::new();
    let gp = gpus(row, flag_gpus);
    match &gp {
        Ok((_, _, _, how)) => out.push(Check::pass(
            "row.gpus",
            format!("per-GPU values divide by {how}"),
        )),
        Err(why) => out.push(Check::fail("row.gpus", why.clone())),
    }
    let total = raw.num("total_token_throughput");
    let output = raw.num("output_throughput");
    let per_gpu: [(&str, &str, Option<f64>, usize); 3] = [
        ("tput_per_gpu", "total_token_throughput / gpus", total, 0),
        ("output_tput_per_gpu", "output_throughput / gpus", output, 1),
        (
            "input_tput_per_gpu",
            "(total_token_throughput - output_throughput) / gpus",
            total.zip(output).map(|(t, o)| t - o),
            2,
        ),
    ];
    for (key, formula, v, which) in per_gpu {
        let id = format!("row.{key}");
        if key == "input_tput_per_gpu" && !row.contains_key(key) {
            continue; // older process_result.py did not write it
        }
        let Some(v) = v else {
            out.push(Check::not_checkable(
                id,
                "the raw file lacks total_token_throughput or output_throughput",
            ));
            continue;
        };
        match &gp {
            Ok((t, d, p, _)) => {
                let n = [*t, *d, *p][which];
                let f = format!("{formula} = {v} / {n}");
                out.push(num_check(id, f, v / n, row.get(key), key));
            }
            Err(_) => out.push(Check::not_checkable(id, "row.gpus failed")),
        }
    }
    match raw.num("max_concurrency") {
        Some(c) => out.push(num_check(
            "row.conc".into(),
            format!("int(max_concurrency) = int({c})"),
            c.trunc(),
            row.get("conc"),
            "conc",
        )),
        None => out.push(Check::skip(
            "row.conc",
            "the raw file has no numeric max_concurrency",
        )),
    }
    if let Some(super::json::Scalar::Str(m)) = raw.get("model_id") {
        let ok = row.get("model").and_then(Value::as_str) == Some(m.as_str());
        out.push(
            Check::outcome("row.model", ok, format!("model = model_id = {m:?}"))
                .with_values(json!(m), row.get("model").cloned().unwrap_or(Value::Null)),
        );
    }
    for (key, v) in &raw.fields {
        let Some(x) = v.num() else { continue };
        if key.ends_with("ms") {
            let k = key.replace("_ms", "");
            out.push(num_check(
                format!("row.{k}"),
                format!("{key} / 1000 = {x} / 1000"),
                x / 1000.0,
                row.get(&k),
                &k,
            ));
        }
        if key.contains("tpot") {
            let k = key.replace("_ms", "").replace("tpot", "intvty");
            let id = format!("row.{k}");
            let a = 1000.0 / x;
            let b = 1000.0 / (x + 1e-8);
            let r = row.get(&k).and_then(Value::as_f64);
            let c = match r {
                Some(r) if row_close(a, r) => Check::pass(id, format!("{k} = 1000 / {key} = 1000 / {x} = {a} (process_result.py at 00e51cc); the row has {r}")),
                Some(r) if row_close(b, r) => Check::pass(id, format!("{k} = 1000 / ({key} + 1e-8) = {b} (process_result.py at 77f3e68); the row has {r}")),
                _ => num_check(id, format!("1000 / ({key} + 1e-8) = 1000 / ({x} + 1e-8)"), b, row.get(&k), &k),
            };
            out.push(c);
        }
    }
    let produced: Vec<String> = out
        .iter()
        .map(|c| c.id.trim_start_matches("row.").to_string())
        .collect();
    let from_env: Vec<&str> = row
        .keys()
        .map(String::as_str)
        .filter(|k| !produced.iter().any(|p| p == k))
        .collect();
    if !from_env.is_empty() {
        out.push(Check::skip(
            "row.environment",
            format!(
                "set from the run's environment, not from the raw file, so not checked: {}",
                from_env.join(", ")
            ),
        ));
    }
    out
}
