//! InferenceX rows (in either layout of [`super::inferencex_rows`]: the
//! flat `agg_<result>.json` row, or the InferenceX-app database row with
//! its numbers under `metrics`) recomputed from the raw client file, by the
//! rules of
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

pub use super::inferencex_rows::{
    parse_row, read_row, select_row, Row, RowError, RowLayout, RowQuery, KNOWN_LAYOUTS,
    MAX_ROW_FILE,
};

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

/// One value the rules derive from the raw file: the row key, the check
/// for a row value, or the check when the row lacks the key.
struct Derived {
    key: String,
    check: RowCheck,
}

/// The check of a derived value, given the row's value for its key.
type RowCheck = Box<dyn Fn(Option<&Value>) -> Check>;

/// The per-metric values the rules derive from the raw file, in rule order:
/// the three per-GPU throughputs first, then one or two per raw field.
fn derived(
    raw: &ResultObject,
    gp: &Result<(f64, f64, f64, String), String>,
    out: &mut Vec<Derived>,
) {
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
        let check: RowCheck = match (v, gp) {
            (None, _) => Box::new(move |_| {
                Check::not_checkable(
                    id.clone(),
                    "the raw file lacks total_token_throughput or output_throughput",
                )
            }),
            (Some(_), Err(_)) => {
                Box::new(move |_| Check::not_checkable(id.clone(), "row.gpus failed"))
            }
            (Some(v), Ok((t, d, p, _))) => {
                let n = [*t, *d, *p][which];
                let f = format!("{formula} = {v} / {n}");
                Box::new(move |r| num_check(id.clone(), f.clone(), v / n, r, key))
            }
        };
        out.push(Derived {
            key: key.to_string(),
            check,
        });
    }
    for (key, v) in &raw.fields {
        let Some(x) = v.num() else { continue };
        if key.ends_with("ms") {
            let k = key.replace("_ms", "");
            let (f, kk) = (format!("{key} / 1000 = {x} / 1000"), k.clone());
            out.push(Derived {
                key: k,
                check: Box::new(move |r| {
                    num_check(format!("row.{kk}"), f.clone(), x / 1000.0, r, &kk)
                }),
            });
        }
        if key.contains("tpot") {
            let k = key.replace("_ms", "").replace("tpot", "intvty");
            let (key, kk) = (key.clone(), k.clone());
            out.push(Derived {
                key: k,
                check: Box::new(move |r| intvty_check(&kk, &key, x, r)),
            });
        }
    }
}

fn intvty_check(k: &str, key: &str, x: f64, row: Option<&Value>) -> Check {
    let id = format!("row.{k}");
    let a = 1000.0 / x;
    let b = 1000.0 / (x + 1e-8);
    match row.and_then(Value::as_f64) {
        Some(r) if row_close(a, r) => Check::pass(id, format!("{k} = 1000 / {key} = 1000 / {x} = {a} (process_result.py at 00e51cc); the row has {r}")),
        Some(r) if row_close(b, r) => Check::pass(id, format!("{k} = 1000 / ({key} + 1e-8) = {b} (process_result.py at 77f3e68); the row has {r}")),
        _ => num_check(id, format!("1000 / ({key} + 1e-8) = 1000 / ({x} + 1e-8)"), b, row, k),
    }
}

/// Checks a row against the raw client result it came from.
///
/// Both layouts get the same rules. In the flat layout every value the
/// rules derive must be in the row (process_result.py writes them all) and
/// the row's other keys are its environment. In the app layout the row
/// publishes a chosen set of metrics: each is recomputed, one the rules
/// cannot derive from this raw file is its own `ok: null` check, and a
/// value the raw file gives but the row does not publish is not compared.
pub fn check_row(raw: &ResultObject, row: &Row, flag_gpus: Option<u64>) -> Vec<Check> {
    let mut out = Vec::new();
    let gp = gpus(&row.fields, flag_gpus);
    match &gp {
        Ok((_, _, _, how)) => out.push(Check::pass(
            "row.gpus",
            format!("per-GPU values divide by {how}"),
        )),
        Err(why) => out.push(Check::fail("row.gpus", why.clone())),
    }
    let mut rules = Vec::new();
    derived(raw, &gp, &mut rules);
    let app = row.layout == RowLayout::AppDatabase;
    let compare = |d: &Derived, out: &mut Vec<Check>| {
        let published = row.metrics.get(&d.key);
        if published.is_none() && (app || d.key == "input_tput_per_gpu") {
            return; // not published (older process_result.py did not write input_tput_per_gpu)
        }
        out.push((d.check)(published));
    };
    let (per_gpu, per_field) = rules.split_at(3);
    for d in per_gpu {
        compare(d, &mut out);
    }
    match raw.num("max_concurrency") {
        Some(c) => out.push(num_check(
            "row.conc".into(),
            format!("int(max_concurrency) = int({c})"),
            c.trunc(),
            row.fields.get("conc"),
            "conc",
        )),
        None => out.push(Check::skip(
            "row.conc",
            "the raw file has no numeric max_concurrency",
        )),
    }
    if let Some(super::json::Scalar::Str(m)) = raw.get("model_id") {
        let ok = row.fields.get("model").and_then(Value::as_str) == Some(m.as_str());
        out.push(
            Check::outcome(
                "row.model",
                ok,
                format!("model = model_id = {m:?} (the row: {})", row.described()),
            )
            .with_values(
                json!(m),
                row.fields.get("model").cloned().unwrap_or(Value::Null),
            ),
        );
    }
    for d in per_field {
        compare(d, &mut out);
    }
    if app {
        for (key, v) in &row.metrics {
            if rules.iter().any(|d| &d.key == key) {
                continue;
            }
            let id = format!("row.{key}");
            out.push(if v.is_number() {
                Check::skip(
                    id,
                    format!("not checked: the row publishes {key} = {v}, but the raw file has no field the rules derive it from"),
                )
            } else {
                Check::fail(id, format!("{key} is {v} in the row's metrics, not a number"))
            });
        }
    }
    let produced: Vec<String> = out
        .iter()
        .map(|c| c.id.trim_start_matches("row.").to_string())
        .collect();
    let from_env: Vec<&str> = row
        .fields
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
