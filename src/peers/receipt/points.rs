//! The per-point part of receipt verification: each point's
//! `execution.json` records the run the receipt describes (a completed
//! native job, client exit code 0), and its normalized file holds exactly
//! one row for the point with every required metric finite and
//! non-negative (measurement-receipt.ts, `verifyMeasurementSnapshot`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::model::{safe_path, typed, Execution, Loose, Point, Receipt};
use crate::report::{Check, Report};
use crate::strictjson::reject_duplicate_json_keys;

/// Largest member file parsed as JSON.
const MAX_MEMBER_JSON: u64 = 64 << 20;

/// A string, or a number written as one (JavaScript's `String(x)`).
fn js_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_member(
    dir: &Path,
    r: &Receipt,
    names: &BTreeSet<String>,
    id: &Loose<u64>,
    path: &Loose<String>,
) -> Result<Value, String> {
    let (Some(id), Some(path)) = (id.get(), path.str()) else {
        return Err("the point names no such member".into());
    };
    let art = r
        .artifacts
        .items()
        .iter()
        .map(|a| a.or_default())
        .find(|a| a.id.get() == Some(id));
    let Some(name) = art
        .as_ref()
        .and_then(|a| a.name.str())
        .filter(|n| names.contains(*n))
    else {
        return Err(format!("artifact {id} is not listed with a usable name"));
    };
    if !safe_path(path) {
        return Err(format!("{path:?} is not a safe member path"));
    }
    let file = dir.join(name).join(path);
    let md = std::fs::symlink_metadata(&file).map_err(|e| format!("{name}/{path}: {e}"))?;
    if !md.is_file() {
        return Err(format!("{name}/{path} is not a regular file"));
    }
    let bytes = crate::capped::read_capped(&file, MAX_MEMBER_JSON).map_err(|e| e.to_string())?;
    reject_duplicate_json_keys(&bytes).map_err(|e| format!("{name}/{path}: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{name}/{path}: not JSON: {e}"))
}

/// `receipt.execution:<point>.contract`: execution.json records this
/// point's completed run.
fn contract(e: &Execution, pt: &Point, r: &Receipt) -> Vec<String> {
    let mut p = Vec::new();
    let eq = |a: Option<&Value>, b: Option<&Value>| a.is_some() && a == b;
    if e.schema_version.get() != Some(&1) {
        p.push("schema_version is not 1".to_string());
    }
    let src = e.source.or_default();
    let native = e.native_receipt.or_default();
    for (mine, theirs, what) in [
        (e.point_id.raw(), pt.point_id.raw(), "point_id"),
        (e.execution_id.raw(), pt.execution_id.raw(), "execution_id"),
        (
            e.bundle_digest.raw(),
            pt.bundle_digest.raw(),
            "bundle_digest",
        ),
        (e.mode.raw(), pt.kind.raw(), "mode (the point's kind)"),
        (
            src.repository.raw(),
            r.repository.raw(),
            "source.repository",
        ),
        (src.attempt.raw(), pt.source_attempt.raw(), "source.attempt"),
        (
            src.head_sha.raw(),
            r.source_head_sha.raw(),
            "source.head_sha",
        ),
        (
            native.manifest_sha256.raw(),
            pt.native_manifest_sha256.raw(),
            "native_receipt.manifest_sha256",
        ),
    ] {
        if !eq(mine, theirs) {
            p.push(format!("{what} differs from the receipt"));
        }
    }
    if js_string(src.run_id.raw()) != js_string(pt.source_run_id.raw()) {
        p.push("source.run_id differs from the point's source_run_id".into());
    }
    if native.state.str() != Some("COMPLETED") {
        p.push("native_receipt.state is not COMPLETED".into());
    }
    let job_ok = js_string(native.job_id.raw()).is_some_and(|s| {
        !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit())
    });
    if !job_ok {
        p.push("native_receipt.job_id is not a positive integer".into());
    }
    p
}

/// `receipt.execution:<point>.contract` and `.client_exit_code`.
fn execution(dir: &Path, r: &Receipt, names: &BTreeSet<String>, pt: &Point, report: &mut Report) {
    let base = format!("receipt.execution:{}", pt.short_id());
    let e = match read_member(dir, r, names, &pt.execution_artifact_id, &pt.execution_path) {
        Err(why) => {
            report.push(Check::not_checkable(format!("{base}.contract"), &why));
            report.push(Check::not_checkable(
                format!("{base}.client_exit_code"),
                &why,
            ));
            return;
        }
        Ok(v) => typed::<Execution>(&v),
    };
    let p = contract(&e, pt, r);
    report.push(if p.is_empty() {
        Check::pass(
            format!("{base}.contract"),
            "execution.json records this point's completed run",
        )
    } else {
        Check::fail(format!("{base}.contract"), p.join("; "))
    });
    let code = e.client_exit_code.raw();
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

/// `receipt.point:<point>.metrics`: one normalized row for the point, with
/// every required metric finite and non-negative.
fn metrics(dir: &Path, r: &Receipt, names: &BTreeSet<String>, pt: &Point) -> Check {
    let mid = format!("receipt.point:{}.metrics", pt.short_id());
    if pt.normalized_format.str() == Some("lm-eval") {
        return Check::skip(mid, "lm-eval results are mapped by the app's eval mapper, which proofpack does not reproduce");
    }
    let rows = match read_member(
        dir,
        r,
        names,
        &pt.normalized_artifact_id,
        &pt.normalized_path,
    ) {
        Err(why) => return Check::not_checkable(mid, why),
        Ok(v) => v,
    };
    let rows: Vec<&Value> = match &rows {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let conc = pt.concurrency.raw().and_then(Value::as_f64);
    let task = pt.task.str();
    let eval = pt.kind.str() == Some("eval");
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
        return Check::fail(
            mid,
            format!(
                "expected exactly one normalized row for concurrency {conc:?}{}, found {}",
                if eval {
                    format!(" and task {task:?}")
                } else {
                    String::new()
                },
                hits.len()
            ),
        );
    }
    let row = hits[0];
    let bad: Vec<String> = pt
        .required_metrics
        .items()
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| {
            !row.get(*m)
                .and_then(Value::as_f64)
                .is_some_and(|x| x.is_finite() && x >= 0.0)
        })
        .map(String::from)
        .collect();
    if bad.is_empty() {
        Check::pass(mid, "the point's normalized row has every required metric, finite and non-negative (read by name; the app's row mapper is not reproduced)")
    } else {
        Check::fail(
            mid,
            format!(
                "required metrics missing, non-finite or negative in the normalized row: {}",
                bad.join(", ")
            ),
        )
    }
}

/// Adds `receipt.execution:<point>.contract`, `.client_exit_code` and
/// `receipt.point:<point>.metrics` for every point.
pub fn check_executions(dir: &Path, r: &Receipt, names: &BTreeSet<String>, report: &mut Report) {
    for pt in r.points.items().iter().map(|p| p.or_default()) {
        execution(dir, r, names, &pt, report);
        report.push(metrics(dir, r, names, &pt));
    }
}
