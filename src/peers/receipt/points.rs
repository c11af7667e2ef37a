//! The per-point part of receipt verification: each point's
//! `execution.json` records the run the receipt describes (a completed
//! native job, client exit code 0), and its normalized file holds exactly
//! one row for the point with every required metric finite and
//! non-negative (measurement-receipt.ts, `verifyMeasurementSnapshot`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::report::{Check, Report};
use crate::strictjson::reject_duplicate_json_keys;

/// Largest member file parsed as JSON.
const MAX_MEMBER_JSON: u64 = 64 << 20;

fn js_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_member(
    dir: &Path,
    v: &Value,
    names: &BTreeSet<String>,
    id: Option<u64>,
    path: Option<&str>,
) -> Result<Value, String> {
    let (Some(id), Some(path)) = (id, path) else {
        return Err("the point names no such member".into());
    };
    let art = v.get("artifacts").and_then(Value::as_array).and_then(|a| {
        a.iter()
            .find(|a| a.get("id").and_then(Value::as_u64) == Some(id))
    });
    let Some(name) = art
        .and_then(|a| a.get("name"))
        .and_then(Value::as_str)
        .filter(|n| names.contains(*n))
    else {
        return Err(format!("artifact {id} is not listed with a usable name"));
    };
    if !super::receipt::safe_path(path) {
        return Err(format!("{path:?} is not a safe member path"));
    }
    let file = dir.join(name).join(path);
    let md = std::fs::symlink_metadata(&file).map_err(|e| format!("{name}/{path}: {e}"))?;
    if !md.is_file() {
        return Err(format!("{name}/{path} is not a regular file"));
    }
    let bytes = crate::manifest::read_capped(&file, MAX_MEMBER_JSON).map_err(|e| e.to_string())?;
    reject_duplicate_json_keys(&bytes).map_err(|e| format!("{name}/{path}: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{name}/{path}: not JSON: {e}"))
}

/// Adds `receipt.execution:<point>.contract`, `.client_exit_code` and
/// `receipt.point:<point>.metrics` for every point.
pub fn check_executions(dir: &Path, v: &Value, names: &BTreeSet<String>, report: &mut Report) {
    let empty = Vec::new();
    let points = v.get("points").and_then(Value::as_array).unwrap_or(&empty);
    for pt in points {
        let pid = pt.get("point_id").and_then(Value::as_str).unwrap_or("?");
        let short = pid.get(..12).unwrap_or(pid);
        let base = format!("receipt.execution:{short}");
        let exec = read_member(
            dir,
            v,
            names,
            pt.get("execution_artifact_id").and_then(Value::as_u64),
            pt.get("execution_path").and_then(Value::as_str),
        );
        match exec {
            Err(why) => {
                report.push(Check::not_checkable(format!("{base}.contract"), &why));
                report.push(Check::not_checkable(
                    format!("{base}.client_exit_code"),
                    &why,
                ));
            }
            Ok(e) => {
                let mut p = Vec::new();
                let eq = |a: Option<&Value>, b: Option<&Value>| a.is_some() && a == b;
                let g = |path: &str| e.pointer(path);
                if g("/schema_version").and_then(Value::as_u64) != Some(1) {
                    p.push("schema_version is not 1".to_string());
                }
                for (mine, theirs, what) in [
                    ("/point_id", pt.get("point_id"), "point_id"),
                    ("/execution_id", pt.get("execution_id"), "execution_id"),
                    ("/bundle_digest", pt.get("bundle_digest"), "bundle_digest"),
                    ("/mode", pt.get("kind"), "mode (the point's kind)"),
                    (
                        "/source/repository",
                        v.get("repository"),
                        "source.repository",
                    ),
                    (
                        "/source/attempt",
                        pt.get("source_attempt"),
                        "source.attempt",
                    ),
                    (
                        "/source/head_sha",
                        v.get("source_head_sha"),
                        "source.head_sha",
                    ),
                    (
                        "/native_receipt/manifest_sha256",
                        pt.get("native_manifest_sha256"),
                        "native_receipt.manifest_sha256",
                    ),
                ] {
                    if !eq(g(mine), theirs) {
                        p.push(format!("{what} differs from the receipt"));
                    }
                }
                if js_string(g("/source/run_id")) != js_string(pt.get("source_run_id")) {
                    p.push("source.run_id differs from the point's source_run_id".into());
                }
                if g("/native_receipt/state").and_then(Value::as_str) != Some("COMPLETED") {
                    p.push("native_receipt.state is not COMPLETED".into());
                }
                let job_ok = js_string(g("/native_receipt/job_id")).is_some_and(|s| {
                    !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit())
                });
                if !job_ok {
                    p.push("native_receipt.job_id is not a positive integer".into());
                }
                report.push(if p.is_empty() {
                    Check::pass(
                        format!("{base}.contract"),
                        "execution.json records this point's completed run",
                    )
                } else {
                    Check::fail(format!("{base}.contract"), p.join("; "))
                });
                let code = g("/client_exit_code");
                let ok = code.and_then(Value::as_i64) == Some(0);
                report.push(
                    Check::outcome(
                        format!("{base}.client_exit_code"),
                        ok,
                        format!(
                            "client_exit_code is {}",
                            code.map_or("missing".to_string(), Value::to_string)
                        ),
                    )
                    .with_values(0, code.cloned().unwrap_or(Value::Null)),
                );
            }
        }
        let mid = format!("receipt.point:{short}.metrics");
        if pt.get("normalized_format").and_then(Value::as_str) == Some("lm-eval") {
            report.push(Check::skip(mid, "lm-eval results are mapped by the app's eval mapper, which proofpack does not reproduce"));
            continue;
        }
        match read_member(
            dir,
            v,
            names,
            pt.get("normalized_artifact_id").and_then(Value::as_u64),
            pt.get("normalized_path").and_then(Value::as_str),
        ) {
            Err(why) => report.push(Check::not_checkable(mid, why)),
            Ok(rows) => {
                let rows: Vec<&Value> = match &rows {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                let conc = pt.get("concurrency").and_then(Value::as_f64);
                let task = pt.get("task").and_then(Value::as_str);
                let eval = pt.get("kind").and_then(Value::as_str) == Some("eval");
                let hits: Vec<&&Value> = rows
                    .iter()
                    .filter(|r| {
                        r.get("conc")
                            .or_else(|| r.get("users"))
                            .and_then(Value::as_f64)
                            == conc
                    })
                    .filter(|r| !eval || r.get("task").and_then(Value::as_str) == task)
                    .collect();
                if hits.len() != 1 {
                    report.push(Check::fail(mid, format!("expected exactly one normalized row for concurrency {conc:?}{}, found {}", if eval { format!(" and task {task:?}") } else { String::new() }, hits.len())));
                    continue;
                }
                let row = hits[0];
                let bad: Vec<String> = pt
                    .get("required_metrics")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .filter(|m| {
                                !row.get(*m)
                                    .and_then(Value::as_f64)
                                    .is_some_and(|x| x.is_finite() && x >= 0.0)
                            })
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default();
                report.push(if bad.is_empty() {
                    Check::pass(mid, "the point's normalized row has every required metric, finite and non-negative (read by name; the app's row mapper is not reproduced)")
                } else {
                    Check::fail(mid, format!("required metrics missing, non-finite or negative in the normalized row: {}", bad.join(", ")))
                });
            }
        }
    }
}
