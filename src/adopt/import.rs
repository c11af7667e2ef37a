//! `run import DIR --point NAME FILE`: a benchmark client's result file
//! becomes the point's client records, by the rules of [`super::derive`].
//!
//! The import refuses (exit 2, naming the file and, where one is at fault,
//! the request) rather than writes records that would not say what the
//! client measured: a format without per-request send times (SGLang's
//! `bench_serving`, InferenceX raw files, `benchmark_serving.py` before
//! `start_times`), arrays of different lengths, a summary that disagrees
//! with its own arrays (`results check`), a latency that disagrees with
//! TTFT + ITLs, a result that was not run as the plan's point (request
//! count, rate, burstiness). It keeps the raw file in the run
//! (`inputs/<point>.vllm.json`), writes the records
//! (`points/<point>/client.jsonl`), names both in `qualification.json`
//! with the plan's digest, and removes the point's claims (they are
//! `publish`'s to write, from the evidence).

use std::path::Path;

use serde_json::json;

use super::derive::{consistency, derive, single, Params, Records};
use super::runfile::{read_file, writable, write_file, RunFile};
use super::AdoptError;
use crate::digest::Sha256Digest;
use crate::peers::detect;
use crate::peers::json::Scalar;
use crate::peers::results::{parse_results, ResultObject};
use crate::publication::slug;
use crate::run::plan::{Arrival, BenchmarkPlan};
use crate::run::qualification::{DERIVE_RULES, MAX_SMALL_FILE};

/// Largest result file imported (it is read whole, then kept in the run).
pub const MAX_RESULT_FILE: u64 = 2 << 30;

/// The format a result file is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// Detected from the file's keys (as `results check` does).
    Auto,
    /// vLLM `bench serve` / `benchmark_serving.py`.
    Vllm,
    /// SGLang `bench_serving` (refused: it saves no send times).
    Sglang,
    /// An InferenceX raw client file (refused: no per-request times).
    Inferencex,
}

/// What `run import` of a result file is told.
#[derive(Debug, Clone)]
pub struct ImportResults<'a> {
    /// The point.
    pub point: &'a str,
    /// The result file.
    pub file: &'a Path,
    /// How to read it.
    pub format: ImportFormat,
    /// Request ids are this prefix and the request's index (default
    /// `<point>-`); use the `--request-id-prefix` the client was run with,
    /// so that a router's log names the same requests.
    pub request_id_prefix: Option<String>,
    /// The UTC offset of the file's `date` (`+00:00` unless stated).
    pub utc_offset: String,
    /// Replace an earlier import of the point.
    pub force: bool,
}

/// What an import wrote (`run import --json` prints it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Imported {
    /// Records written.
    pub records: u64,
    /// Of them ok, error, timeout.
    pub ok: u64,
    /// Failed with an error.
    pub errors: u64,
    /// Timed out.
    pub timeouts: u64,
    /// The raw file's path in the run.
    pub source: String,
    /// The records file's path in the run.
    pub records_file: String,
    /// How the times were anchored.
    pub anchor: String,
    /// What `results check` said of the file.
    pub consistency: String,
}

fn refuse(file: &Path, why: impl std::fmt::Display) -> AdoptError {
    AdoptError::Refused(format!("{}: {why}", file.display()))
}

/// Refuses a result that was not run as the plan's point.
fn plan_agrees(
    obj: &ResultObject,
    file: &Path,
    point: &str,
    expected: u64,
    rate: f64,
    arrival: Arrival,
) -> Result<(), AdoptError> {
    let n = obj.arrays.start_times.as_ref().map_or(0, Vec::len) as u64;
    if n != expected {
        return Err(refuse(
            file,
            format!(
                "holds {n} requests; the plan's point {point:?} runs {expected} (requests + warmup): this is not that point's result"
            ),
        ));
    }
    match obj.get("request_rate") {
        Some(Scalar::Num { value, .. }) if (value - rate).abs() > 1e-9 * rate.abs() => {
            return Err(refuse(
                file,
                format!("was run at request_rate {value}; the plan's point {point:?} offers {rate} request/s"),
            ))
        }
        Some(Scalar::Str(s)) => {
            return Err(refuse(
                file,
                format!("was run at request_rate {s:?} (every request at once); the plan's point {point:?} offers {rate} request/s"),
            ))
        }
        _ => {}
    }
    if let Some(Scalar::Num { value: b, .. }) = obj.get("burstiness") {
        let planned = match arrival {
            Arrival::Poisson => Some(1.0),
            Arrival::Gamma { burstiness } => Some(burstiness),
            Arrival::Constant => None,
        };
        if planned.is_none_or(|p| (p - b).abs() > 1e-9 * p.abs()) {
            return Err(refuse(
                file,
                format!(
                    "was run with burstiness {b}; the plan's arrivals are {}",
                    arrival.describe()
                ),
            ));
        }
    }
    Ok(())
}

/// Every record's token counts are within the plan's workload lengths
/// (`plan.lengths`, `point:<name>.tokens` at `verify`): what `verify`
/// would fail is refused here, naming the first request past them.
fn within_lengths(
    records: &Records,
    max_in: Option<u64>,
    max_out: Option<u64>,
) -> Result<(), String> {
    for r in &records.records {
        for (what, n, max, flag) in [
            ("input_tokens", r.input_tokens, max_in, "--max-input-tokens"),
            (
                "output_tokens",
                r.output_tokens,
                max_out,
                "--max-output-tokens",
            ),
        ] {
            if let Some(m) = max.filter(|m| n > *m) {
                return Err(format!(
                    "request {} (request id {:?}) has {what} {n}, more than the plan's {m} ({flag}): the file is not of the workload the plan states, and verify would fail point:{}.tokens",
                    r.source_index, r.request_id, r.point
                ));
            }
        }
    }
    Ok(())
}

/// Imports a result file as the client records of a point of the run at
/// `root`.
pub fn import_results(root: &Path, r: &ImportResults<'_>) -> Result<Imported, AdoptError> {
    let mut run = RunFile::load(root)?;
    let q = run.qualification()?;
    let Some(point) = q.points.iter().find(|p| p.name == r.point) else {
        return Err(AdoptError::Usage(format!(
            "qualification.json declares no point {:?} (its points: {})",
            r.point,
            run.point_names().join(", ")
        )));
    };
    if point.source.is_some() && !r.force {
        return Err(AdoptError::Usage(format!(
            "point {:?} was imported already (from {}); pass --force to replace it",
            r.point,
            point.source.as_ref().map_or("", |s| s.file.as_str())
        )));
    }
    let plan_file = q.plan.clone().ok_or_else(|| {
        AdoptError::Run(
            "qualification.json names no benchmark plan; make the run with `proofpack run new`"
                .into(),
        )
    })?;
    let plan_bytes = read_file(root, &plan_file, MAX_SMALL_FILE)?;
    let plan = BenchmarkPlan::parse(&plan_bytes, &plan_file).map_err(AdoptError::Run)?;
    let Some(planned) = plan.points.iter().find(|p| p.name == r.point) else {
        return Err(AdoptError::Run(format!(
            "the benchmark plan {plan_file} runs no point {:?}",
            r.point
        )));
    };
    let bytes = crate::capped::read_capped(r.file, MAX_RESULT_FILE)
        .map_err(|e| AdoptError::Refused(e.to_string()))?;
    let origin = r.file.display().to_string();
    let objects = parse_results(bytes.as_slice(), r.file).map_err(AdoptError::Results)?;
    let i = single(&objects, &origin).map_err(AdoptError::Derive)?;
    let obj = &objects[i];
    let detected = detect(obj).map(|d| d.name);
    let sglang = "SGLang's bench_serving saves no per-request send times (its arrays are input_lens, output_lens, ttfts, itls, generated_texts and errors)";
    match (r.format, detected) {
        (_, None) => {
            return Err(refuse(
                r.file,
                "not a vLLM or SGLang benchmark result (no completed or duration field); the format is unknown",
            ))
        }
        (ImportFormat::Sglang, _) => return Err(refuse(r.file, format!("read as SGLang: {sglang}; the offered rate and the measurement window cannot be checked without them, so the file cannot become client records"))),
        (ImportFormat::Auto, Some(name)) if name != crate::peers::vllm::VLLM.name => {
            return Err(refuse(r.file, format!("detected as {name}: {sglang}; the offered rate and the measurement window cannot be checked without them, so the file cannot become client records")))
        }
        (ImportFormat::Inferencex, _) if obj.arrays.start_times.is_none() => {
            return Err(refuse(r.file, "read as an InferenceX raw client file (its fork of benchmark_serving.py keeps input_lens and output_lens, no per-request send times); the offered rate and the measurement window cannot be checked without them, so the file cannot become client records"))
        }
        _ => {}
    }
    let prefix = r
        .request_id_prefix
        .clone()
        .unwrap_or_else(|| format!("{}-", r.point));
    // An id is the prefix and an index of at most 20 digits.
    if prefix.len() + 20 > crate::run::qualification::MAX_REQUEST_ID_BYTES {
        return Err(AdoptError::Usage(format!(
            "--request-id-prefix of {} bytes: the request ids would be longer than the {} bytes proofpack reads",
            prefix.len(),
            crate::run::qualification::MAX_REQUEST_ID_BYTES
        )));
    }
    let params = Params {
        point: r.point.to_string(),
        warmup: planned.warmup,
        declared: planned.requests.saturating_add(planned.warmup),
        request_id_prefix: prefix.clone(),
        utc_offset: r.utc_offset.clone(),
        anchor_adjust_s: 0.0,
    };
    // The arrays' own shape and the send times first: the results check
    // below would say the same of unequal arrays less directly.
    let records: Records = derive(obj, &params, &origin).map_err(AdoptError::Derive)?;
    plan_agrees(
        obj,
        r.file,
        r.point,
        planned.requests + planned.warmup,
        planned.offered_rate,
        plan.arrival,
    )?;
    let checked = consistency(objects, &origin).map_err(|why| refuse(r.file, why))?;
    within_lengths(&records, plan.max_input_tokens, plan.max_output_tokens)
        .map_err(|why| refuse(r.file, why))?;
    let source_rel = format!("inputs/{}.vllm.json", r.point);
    let records_rel = point.client_records.clone();
    let plan_digest = Sha256Digest::of_bytes(&plan_bytes);
    writable(
        root,
        &[&source_rel, &records_rel, crate::run::QUALIFICATION_FILE],
    )?;
    write_file(root, &source_rel, &bytes)?;
    write_file(root, &records_rel, &records.render())?;
    let p = run.point_mut(r.point)?;
    p.insert(
        "source".into(),
        json!({
            "file": source_rel,
            "format": "vllm",
            "rules": DERIVE_RULES,
            "request_id_prefix": prefix,
            "utc_offset": r.utc_offset,
            "anchor_adjust_s": 0.0,
            "plan_sha256": plan_digest.to_hex(),
        }),
    );
    p.insert("claims".into(), json!({}));
    run.add_fact(&format!("{}-result-file", slug(r.point)), &source_rel);
    run.save()?;
    let (ok, errors, timeouts) = records.counts();
    Ok(Imported {
        records: records.records.len() as u64,
        ok,
        errors,
        timeouts,
        source: source_rel,
        records_file: records_rel,
        anchor: records.anchor,
        consistency: checked,
    })
}
