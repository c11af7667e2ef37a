//! `run import DIR --point NAME --journal LOG`: a router's request log
//! becomes the point's journal, the second witness of its requests.
//!
//! The log format read is LiteLLM proxy's `StandardLoggingPayload`, one
//! JSON object per line, as its logging integrations emit it for every
//! successful and failed call (docs.litellm.ai/docs/proxy/logging_spec;
//! `litellm/types/utils.py`, `StandardLoggingPayload` and
//! `StandardLoggingMetadata`). Fields read, others ignored:
//! - `metadata.requester_custom_headers`: the `x-` headers the client sent
//!   the proxy; its `x-request-id` (any case) is the client's request id
//!   (`vllm bench serve` sends `x-request-id: <--request-id-prefix><i>`);
//! - `startTime`, `completionStartTime`, `endTime`: unix seconds (the
//!   call's start, its first streamed chunk, its end);
//! - `status`: `"success"` or `"failure"`; a failure whose
//!   `error_information.error_class` ends in `Timeout` (`litellm.Timeout`)
//!   is a timeout.
//!
//! Each line whose request id starts with the point's prefix becomes the
//! events `received` (at `startTime`), `first_token` (at
//! `completionStartTime`, success only: a failure's payload does not say
//! whether a chunk arrived) and `terminal` (at `endTime`, with the status).
//! Lines of other requests are left out and counted. The log is kept in
//! the run (`inputs/<point>.litellm.jsonl`).
//!
//! The client's send times are anchored to its `date`, one-second
//! precision; the log's times are the router's wall clock. The import
//! moves the anchor by the median of (journal minus client) over the first
//! token and end times of the ok requests both record, rounded to the
//! millisecond, at most `MAX_ANCHOR_ADJUST_S`, and derives the records
//! again with it (the move is recorded as `anchor_adjust_s` and `verify`
//! derives with it). The move is one number for the whole point: each
//! request's times must still agree on their own (`journal.timing`).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use super::derive::{derive, single, Params};
use super::import::MAX_RESULT_FILE;
use super::runfile::{read_file, writable, write_file, RunFile};
use super::AdoptError;
use crate::peers::results::parse_results;
use crate::run::qualification::{Point, DERIVE_RULES, MAX_ANCHOR_ADJUST_S};
use crate::strictjson::reject_duplicate_json_keys;

/// What a journal import wrote (`run import --journal --json` prints it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct JournalImported {
    /// Log lines of the point's requests.
    pub lines: u64,
    /// Events written.
    pub events: u64,
    /// Lines of other requests (another prefix), left out.
    pub other: u64,
    /// Lines without an `x-request-id`, left out.
    pub without_id: u64,
    /// The journal's path in the run.
    pub journal: String,
    /// The log's path in the run.
    pub raw: String,
    /// The anchor's move, seconds.
    pub adjust_s: f64,
}

struct Line {
    id: String,
    start: f64,
    first: Option<f64>,
    end: f64,
    status: &'static str,
    line: u64,
    /// `completion_tokens`, where the log states it (the backend's own
    /// count of the answer, which the router passes on).
    completion_tokens: Option<u64>,
}

fn bad(file: &Path, line: u64, why: impl std::fmt::Display) -> AdoptError {
    AdoptError::Refused(format!("{}:{line}: {why}", file.display()))
}

fn read_line(file: &Path, n: u64, text: &str) -> Result<Option<Line>, AdoptError> {
    reject_duplicate_json_keys(text.as_bytes()).map_err(|e| bad(file, n, e))?;
    let v: Value = serde_json::from_str(text).map_err(|e| bad(file, n, e))?;
    let obj = v
        .as_object()
        .ok_or_else(|| bad(file, n, "not a JSON object (a StandardLoggingPayload)"))?;
    let id = obj
        .get("metadata")
        .and_then(|m| m.get("requester_custom_headers"))
        .and_then(Value::as_object)
        .and_then(|h| {
            h.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("x-request-id"))
                .map(|(_, v)| v)
        });
    let id = match id {
        None => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(bad(
                file,
                n,
                format!("x-request-id is {other}, not a string"),
            ))
        }
    };
    let time = |k: &str| -> Result<f64, AdoptError> {
        obj.get(k)
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite())
            .ok_or_else(|| {
                bad(
                    file,
                    n,
                    format!("{k} is missing or not a number (unix seconds)"),
                )
            })
    };
    let status = match obj.get("status").and_then(Value::as_str) {
        Some("success") => "ok",
        Some("failure") => {
            let class = obj
                .get("error_information")
                .and_then(|e| e.get("error_class"))
                .and_then(Value::as_str)
                .unwrap_or("");
            if class.ends_with("Timeout") {
                "timeout"
            } else {
                "error"
            }
        }
        _ => return Err(bad(file, n, "status is not \"success\" or \"failure\"")),
    };
    let first = match obj.get("completionStartTime") {
        None | Some(Value::Null) => None,
        Some(_) => Some(time("completionStartTime")?),
    };
    let completion_tokens = match obj.get("completion_tokens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            bad(
                file,
                n,
                format!("completion_tokens is {v}, not a non-negative integer"),
            )
        })?),
    };
    Ok(Some(Line {
        id,
        start: time("startTime")?,
        first: if status == "ok" { first } else { None },
        end: time("endTime")?,
        status,
        line: n,
        completion_tokens,
    }))
}

/// What the router log says of each successful request's answer: (request
/// id, `completion_tokens` where the line states it, log line).
pub fn completion_tokens(log: &ParsedLog) -> Vec<(String, Option<u64>, u64)> {
    log.lines
        .iter()
        .filter(|l| l.status == "ok")
        .map(|l| (l.id.clone(), l.completion_tokens, l.line))
        .collect()
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// The lines of a LiteLLM log that belong to a point (their request id
/// starts with the point's prefix), and how many were left out.
pub struct ParsedLog {
    lines: Vec<Line>,
    /// Lines of other requests.
    pub other: u64,
    /// Lines without an `x-request-id`.
    pub without_id: u64,
}

impl ParsedLog {
    /// The point's lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }
    /// True when no line is the point's.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// Reads a LiteLLM log (`file` names it in errors): every line a
/// `StandardLoggingPayload` object, strict JSON, no blank line.
pub fn parse_log(file: &Path, bytes: &[u8], prefix: &str) -> Result<ParsedLog, AdoptError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| AdoptError::Refused(format!("{}: not UTF-8", file.display())))?;
    let mut log = ParsedLog {
        lines: Vec::new(),
        other: 0,
        without_id: 0,
    };
    for (i, t) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let t = t.trim_end_matches('\r');
        if t.trim().is_empty() {
            return Err(bad(file, n, "blank line"));
        }
        match read_line(file, n, t)? {
            None => log.without_id += 1,
            Some(l) if l.id.len() > crate::run::qualification::MAX_REQUEST_ID_BYTES => {
                return Err(bad(
                    file,
                    n,
                    format!(
                        "a request id of {} bytes; proofpack reads ids of at most {}",
                        l.id.len(),
                        crate::run::qualification::MAX_REQUEST_ID_BYTES
                    ),
                ))
            }
            Some(l) if l.id.starts_with(prefix) => log.lines.push(l),
            Some(_) => log.other += 1,
        }
    }
    Ok(log)
}

/// The journal events of a point's log lines, as JSON Lines, and how many.
pub fn events(log: &ParsedLog, point: &str) -> (Vec<u8>, u64) {
    let mut out = Vec::new();
    let mut n = 0u64;
    let mut push = |v: Value| {
        serde_json::to_writer(&mut out, &v).expect("JSON values serialise");
        out.push(b'\n');
        n += 1;
    };
    for l in &log.lines {
        push(
            json!({"request_id": l.id, "point": point, "event": "received", "at": l.start, "log_line": l.line}),
        );
        if let Some(f) = l.first {
            push(
                json!({"request_id": l.id, "point": point, "event": "first_token", "at": f, "log_line": l.line}),
            );
        }
        push(
            json!({"request_id": l.id, "point": point, "event": "terminal", "at": l.end, "status": l.status, "log_line": l.line}),
        );
    }
    (out, n)
}

/// The journal of `point` derived from the LiteLLM log `file` (its
/// `bytes`), exactly as [`import_journal`] writes it: what `verify`
/// derives again and compares with the run's journal.
pub fn journal_of(
    point: &Point,
    file: &str,
    bytes: &[u8],
) -> Result<crate::run::deriver::DerivedJournal, String> {
    let src = point.source.as_ref().ok_or_else(|| {
        format!(
            "point {:?} names no source, so no request id prefix",
            point.name
        )
    })?;
    let parsed =
        parse_log(Path::new(file), bytes, &src.request_id_prefix).map_err(|e| e.to_string())?;
    Ok(crate::run::deriver::DerivedJournal {
        events: events(&parsed, &point.name).0,
        completion_tokens: completion_tokens(&parsed),
    })
}

/// Imports a LiteLLM request log as the journal of point `name`.
pub fn import_journal(root: &Path, name: &str, log: &Path) -> Result<JournalImported, AdoptError> {
    let mut run = RunFile::load(root)?;
    let q = run.qualification()?;
    let point = q.points.iter().find(|p| p.name == name).ok_or_else(|| {
        AdoptError::Usage(format!("qualification.json declares no point {name:?}"))
    })?;
    let Some(src) = point.source.clone() else {
        return Err(AdoptError::Usage(format!(
            "point {name:?} has no imported result file yet; import it first (run import DIR --point {name} FILE), so that the log's requests can be matched to its records"
        )));
    };
    let bytes = crate::capped::read_capped(log, MAX_RESULT_FILE)
        .map_err(|e| AdoptError::Refused(e.to_string()))?;
    let parsed = parse_log(log, &bytes, &src.request_id_prefix)?;
    let (other, without_id) = (parsed.other, parsed.without_id);
    let lines = &parsed.lines;
    if lines.is_empty() {
        return Err(AdoptError::Refused(format!(
            "{}: no line names a request of point {name:?} (an x-request-id starting with {:?}); {other} line(s) of other requests, {without_id} without an x-request-id",
            log.display(),
            src.request_id_prefix
        )));
    }
    // The anchor's move: the median of (journal - client) over the first
    // token and end times both record.
    let raw = read_file(root, &src.file, MAX_RESULT_FILE)?;
    let objects =
        parse_results(raw.as_slice(), Path::new(&src.file)).map_err(AdoptError::Results)?;
    let i = single(&objects, &src.file).map_err(AdoptError::Derive)?;
    let mut params = Params::of(point, &src);
    let records = derive(&objects[i], &params, &src.file).map_err(AdoptError::Derive)?;
    let by_id: HashMap<&str, _> = records
        .records
        .iter()
        .map(|r| (r.request_id.as_str(), r))
        .collect();
    let mut diffs = Vec::new();
    for l in lines {
        if let Some(r) = by_id.get(l.id.as_str()).filter(|r| r.status == "ok") {
            if let (Some(a), Some(b)) = (l.first, r.first_token_at) {
                diffs.push(a - b);
            }
            if let Some(b) = r.finished_at {
                diffs.push(l.end - b);
            }
        }
    }
    // What verify checks (point:<name>.journal_source.tokens), refused
    // here: the router's count of each answer is the records'.
    let (off, _) = crate::run::deriver::token_disagreements(
        &completion_tokens(&parsed),
        |id| {
            by_id
                .get(id)
                .filter(|r| r.status == "ok")
                .map(|r| r.output_tokens)
        },
        &log.display().to_string(),
    );
    if let Some(first) = off.first() {
        return Err(AdoptError::Refused(format!(
            "{}: {} successful request(s) have other output tokens in {} than the router counted ({first}); the result file is not what the router served, or the log is not of this run",
            log.display(),
            off.len(),
            src.file
        )));
    }
    let shift = median(diffs).unwrap_or(0.0);
    let adjust = ((src.anchor_adjust_s + shift) * 1000.0).round() / 1000.0;
    if adjust.abs() > MAX_ANCHOR_ADJUST_S {
        return Err(AdoptError::Refused(format!(
            "{}: the router's clock and the client's records differ by {shift:+.3} s (median over the requests both record); the client's anchor has one-second precision and may move at most {MAX_ANCHOR_ADJUST_S} s, so this log is not of this run or a clock is wrong",
            log.display()
        )));
    }
    let journal_rel = format!("points/{name}/journal.jsonl");
    let raw_rel = format!("inputs/{name}.litellm.jsonl");
    writable(
        root,
        &[
            &point.client_records,
            &raw_rel,
            &journal_rel,
            crate::run::QUALIFICATION_FILE,
        ],
    )?;
    if adjust != src.anchor_adjust_s {
        params.anchor_adjust_s = adjust;
        let again = derive(&objects[i], &params, &src.file).map_err(AdoptError::Derive)?;
        write_file(root, &point.client_records, &again.render())?;
    }
    let (out, events) = events(&parsed, name);
    write_file(root, &raw_rel, &bytes)?;
    write_file(root, &journal_rel, &out)?;
    let p = run.point_mut(name)?;
    p.insert("journal".into(), json!(journal_rel));
    p.insert(
        "journal_source".into(),
        json!({"file": raw_rel, "format": "litellm", "rules": DERIVE_RULES}),
    );
    if let Some(s) = p.get_mut("source").and_then(Value::as_object_mut) {
        s.insert("anchor_adjust_s".into(), json!(adjust));
    }
    run.save()?;
    Ok(JournalImported {
        lines: lines.len() as u64,
        events,
        other,
        without_id,
        journal: journal_rel,
        raw: raw_rel,
        adjust_s: adjust,
    })
}
