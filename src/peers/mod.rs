//! Results of other benchmark tools, verified in their own formats (issue
//! 14): vLLM `bench serve` and SGLang `bench_serving` result files
//! recomputed from their per-request arrays ([`vllm`], [`sglang`], shared
//! reading in [`results`] and recomputation in [`serving`]); InferenceX
//! rows (process_result.py's and the InferenceX-app database's layouts,
//! [`inferencex_rows`]) recomputed from the raw client file ([`inferencex`]);
//! InferenceX source measurement receipts ([`receipt`]); and proofpack
//! claims cross-checked against a peer file ([`claims`]).
//!
//! Every definition is the producing tool's own, read in its source and
//! cited in docs/peers.md; statistics are numpy's, reproduced exactly
//! ([`crate::numpy`]). Floats are compared with a relative tolerance of 1e-9
//! ([`tolerance::REL_TOLERANCE`]), counts exactly. A field that the file
//! cannot support is `ok: null` with the reason, never a pass.

pub mod claims;
pub mod duration;
pub mod errors;
pub mod inferencex;
pub mod inferencex_rows;
pub mod json;
pub mod receipt;
mod summary;
pub(crate) use summary::failed_checks;
pub mod results;
pub mod serving;
pub mod sglang;
pub mod stat_key;
pub mod tolerance;
pub mod vllm;

use std::path::Path;

use crate::report::{Check, Report};

/// The check a result file gets when none of its fields could be compared
/// (a file with nothing to check is not a verified file).
pub const NOTHING_COMPARED: &str = "result.compared";
use results::{ResultObject, ResultsError};
use serving::{Checked, ToolDef};

/// Which client wrote a result file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Detected per result object from its keys.
    Auto,
    /// vLLM `bench serve` / `benchmark_serving.py`.
    Vllm,
    /// SGLang `bench_serving`.
    Sglang,
}

/// A result file, read and checked.
#[derive(Debug)]
pub struct ResultsCheck {
    /// The report (`result.<field>` checks; `result[<n>].<field>` when the
    /// file holds several results).
    pub report: Report,
    /// The objects as read.
    pub objects: Vec<ResultObject>,
    /// Per object, the definitions used and what was recomputed.
    pub checked: Vec<(&'static ToolDef, Checked)>,
}

/// The id prefix of result object `i` (0-based) of `n`.
pub fn prefix(i: usize, n: usize) -> String {
    if n == 1 {
        "result".to_string()
    } else {
        format!("result[{}]", i + 1)
    }
}

/// Checks the result objects of a file already read; `target` names it.
pub fn check_objects(
    objects: Vec<ResultObject>,
    format: Format,
    path: &Path,
) -> Result<ResultsCheck, ResultsError> {
    let mut report = Report::new(path.display().to_string());
    let mut checked = Vec::new();
    let n = objects.len();
    for (i, obj) in objects.iter().enumerate() {
        let detected = detect(obj);
        let def: &'static ToolDef = match (format, detected) {
            (_, None) => {
                return Err(ResultsError::Format {
                    path: path.to_path_buf(),
                    index: i + 1,
                    why: "not a vLLM or SGLang benchmark result (no completed or duration field)"
                        .into(),
                })
            }
            (Format::Auto, Some(d)) => d,
            (Format::Vllm, Some(_)) => &vllm::VLLM,
            (Format::Sglang, Some(_)) => &sglang::SGLANG,
        };
        let c = serving::check_object(obj, def, &prefix(i, n));
        for ch in &c.checks {
            report.push(ch.clone());
        }
        checked.push((def, c));
    }
    Ok(ResultsCheck {
        report,
        objects,
        checked,
    })
}

/// Which definitions fit an object's keys: `Some(def)`, or `None` when it
/// is not a result of either client.
pub fn detect(obj: &ResultObject) -> Option<&'static ToolDef> {
    use self::{sglang::SGLANG, vllm::VLLM};
    let has = |k: &str| obj.get(k).is_some() || obj.arrays.lengths().iter().any(|(a, _)| *a == k);
    if !(has("completed") || has("duration")) {
        return None;
    }
    let v = VLLM.markers.iter().filter(|k| has(k)).count();
    let s = SGLANG.markers.iter().filter(|k| has(k)).count();
    Some(if s > v { &SGLANG } else { &VLLM })
}

impl ResultsCheck {
    /// The report with its verdict line, once every check is in (the
    /// file's own, and any row or claims cross-checks added).
    pub fn finish(mut self) -> Report {
        let n = self.objects.len();
        let summary_only = self.checked.iter().all(|(_, c)| c.summary_only);
        let tools: Vec<&str> = {
            let mut t: Vec<&str> = self.checked.iter().map(|(d, _)| d.name).collect();
            t.dedup();
            t
        };
        let s = self.report.summary();
        let what = format!(
        "{} result{} of {}; {} fields recomputed and compared (floats with relative tolerance 1e-9, counts exactly), {} not recomputable from the file",
        n,
        if n == 1 { "" } else { "s" },
        tools.join(", "),
        s.passed + s.failed,
        s.skipped
    );
        let line = if s.passed == 0 && s.failed == 0 {
            self.report.push(Check::fail(
                NOTHING_COMPARED,
                "no field of the file could be recomputed and compared",
            ));
            format!("FAILED: nothing could be compared; {what}")
        } else if !self.report.ok() {
            format!("FAILED: {}; {what}", failed_checks(&self.report))
        } else if summary_only {
            format!(
            "VERIFIED (summary only: no per-request arrays, internal consistency checked): {what}"
        )
        } else {
            format!("VERIFIED: {what}")
        };
        self.report.set_verdict(line);
        self.report
    }

    /// Adds checks (row or claims cross-checks).
    pub fn add(&mut self, checks: Vec<Check>) {
        for c in checks {
            self.report.push(c);
        }
    }
}

/// Reads and checks a result file.
pub fn check_results_file(path: &Path, format: Format) -> Result<ResultsCheck, ResultsError> {
    let objects = results::read_results(path)?;
    check_objects(objects, format, path)
}
