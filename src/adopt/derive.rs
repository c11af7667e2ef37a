//! The derivation rules `proofpack/derive/v1`: a vLLM `bench serve`
//! result file's per-request arrays become client records (contract
//! section 6, "Client records derived from a result file"; docs/peers.md).
//!
//! Request `i` (its index in the arrays) becomes the record:
//! - `request_id` = the point's `request_id_prefix` and `i`;
//! - `status` from `errors[i]` ([`crate::peers::errors::classify`]): `ok`
//!   when empty, `timeout` where the client marks a timeout, else `error`;
//! - `sent_at` = `start_times[i]` anchored to wall-clock time
//!   ([`super::clock`]): the end of the last request is the file's `date`
//!   (plus `anchor_adjust_s`), so `sent_at = D + (start_times[i] - T_end)`;
//! - an ok request: `first_token_at = sent_at + ttfts[i]`, `finished_at =
//!   first_token_at + sum(itls[i])`, or `sent_at + latencies[i]` where the
//!   file records latencies, which must then be no shorter than the
//!   token times `ttfts[i] + sum(itls[i])` beyond the rounding of the
//!   request's own clock readings ([`agreement_tolerance`]) and no longer
//!   than them plus a stream's tail ([`MAX_STREAM_TAIL_S`]);
//!   `output_tokens = output_lens[i]`, at least 1;
//! - a failed request: `first_token_at = sent_at + ttfts[i]` when the
//!   client recorded a first token (`ttfts[i] > 0`), else null;
//!   `finished_at` null (the client records no end for a failure);
//! - `input_tokens = input_lens[i]`; no request is a warmup (the client
//!   keeps none in its file, so a point declaring warmups is refused);
//! - every request's readings, failed ones included, are clock readings
//!   and durations ([`MAX_CLOCK_S`]), and the point's mean time per token
//!   is at least [`MIN_TIME_PER_TOKEN_S`];
//! - two fields beyond the contract's: `source_index` (`i`) and
//!   `anchor_precision_s` (1).
//!
//! Records are rendered one JSON object per line, keys in that order,
//! numbers as serde_json writes them (shortest round-trip form), so that
//! the derivation of the same file is the same bytes wherever it runs.

use std::path::Path;

use serde::Serialize;

use super::clock::{date_unix, ANCHOR_PRECISION_S};
use crate::peers::errors::RequestError;
use crate::peers::json::Scalar;
use crate::peers::results::ResultObject;
use crate::peers::{check_objects, Format};
use crate::run::qualification::{Point, PointSource, Status};
use crate::run::records::MAX_CLIENT_RECORDS;

/// What the derivation needs besides the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// The point the records belong to.
    pub point: String,
    /// Warmup requests (the first by send time).
    pub warmup: u64,
    /// The requests the point declares (its requests plus warmups): a
    /// file holding more is not that point's result.
    pub declared: u64,
    /// Request ids are this prefix and the request's index.
    pub request_id_prefix: String,
    /// The UTC offset of the file's `date`.
    pub utc_offset: String,
    /// Seconds added to the anchor.
    pub anchor_adjust_s: f64,
}

impl Params {
    /// The parameters a point's source declares.
    pub fn of(point: &Point, source: &PointSource) -> Params {
        Params {
            point: point.name.clone(),
            warmup: point.warmup,
            declared: point.requests.saturating_add(point.warmup),
            request_id_prefix: source.request_id_prefix.clone(),
            utc_offset: source.utc_offset.clone(),
            anchor_adjust_s: source.anchor_adjust_s,
        }
    }
}

/// Why a result file cannot be derived from (each names the request where
/// one is at fault).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeriveError {
    /// The file keeps no per-request send times.
    #[error("{file}: no per-request start times ({why}); the offered rate and the measurement window cannot be checked without them, so the file cannot become client records")]
    NoStartTimes {
        /// The file.
        file: String,
        /// What the file is and lacks.
        why: String,
    },
    /// An array the derivation needs is missing.
    #[error("{file}: no {array} array; the records need it (vllm bench serve writes it with --save-detailed)")]
    Missing {
        /// The file.
        file: String,
        /// The array.
        array: &'static str,
    },
    /// Arrays of different lengths.
    #[error("{file}: the per-request arrays have different lengths ({lengths}); request i must be entry i of every array")]
    Lengths {
        /// The file.
        file: String,
        /// `name n` of each array.
        lengths: String,
    },
    /// The file's `date` is missing or unreadable.
    #[error("{file}: {why}; the start times cannot be anchored to wall-clock time")]
    Date {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// One request's values cannot make a record.
    #[error("{file}: request {index} (request id {request_id:?}): {why}")]
    Request {
        /// The file.
        file: String,
        /// Its index in the arrays.
        index: usize,
        /// The id its record would have.
        request_id: String,
        /// What is wrong.
        why: String,
    },
    /// Not one result object.
    #[error("{file}: {why}")]
    Shape {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
}

/// One derived record, in the order its keys are written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// Request id.
    pub request_id: String,
    /// Point name.
    pub point: String,
    /// A warmup request.
    pub warmup: bool,
    /// Final status.
    pub status: &'static str,
    /// Send time, unix seconds.
    pub sent_at: f64,
    /// First token, unix seconds.
    pub first_token_at: Option<f64>,
    /// Finish, unix seconds.
    pub finished_at: Option<f64>,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// The request's index in the result file's arrays.
    pub source_index: usize,
    /// Precision of the wall-clock anchor, seconds.
    pub anchor_precision_s: u64,
}

/// The records of one result file.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// One per request, in file order.
    pub records: Vec<Record>,
    /// How the times were anchored, one clause.
    pub anchor: String,
    /// Where a failed request has no end, the client's own end of the
    /// benchmark on the records' clock (its first send plus `duration`),
    /// no earlier than which the point's window ends.
    pub window_end: Option<f64>,
}

impl Records {
    /// The records file's bytes.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.records.len() * 256);
        for r in &self.records {
            // A record of strings, numbers and booleans always serialises.
            serde_json::to_writer(&mut out, r).expect("a record serialises");
            out.push(b'\n');
        }
        out
    }

    /// Records of each status: ok, error, timeout.
    pub fn counts(&self) -> (u64, u64, u64) {
        let n = |s: &str| self.records.iter().filter(|r| r.status == s).count() as u64;
        (n("ok"), n("error"), n("timeout"))
    }
}

/// How far `latencies[i]` may fall short of `ttfts[i] + sum(itls[i])`:
/// the client computes each of them as the difference of two
/// `time.perf_counter()` readings of the request itself, of magnitude at
/// most `m` (its start reading plus its latency), so the sum of `k + 1`
/// such differences can differ from the latency by at most about
/// `(k + 2)` units of `m` plus the rounding of the sum; twice that is
/// allowed. A larger shortfall is not rounding: the file contradicts
/// itself.
pub fn agreement_tolerance(k: usize, m: f64) -> f64 {
    2.0 * (k as f64 + 2.0) * f64::EPSILON * m.abs().max(1.0)
}

/// How much longer than `ttfts[i] + sum(itls[i])` a latency may be: the
/// client stops its latency clock at the end of the stream, after the
/// last token's chunk (a usage chunk, the stream's end), so an honest
/// latency is a little longer than the token times; a second is far more
/// than any stream's tail.
pub const MAX_STREAM_TAIL_S: f64 = 1.0;

/// The largest clock reading accepted (2^32 s, about 136 years): a
/// `time.perf_counter()` or epoch reading is far below it, and a double
/// still resolves a microsecond there; a reading past it could not
/// resolve the times derived from it.
pub const MAX_CLOCK_S: f64 = 4_294_967_296.0;

/// The shortest mean time per output token a point may show: no serving
/// stack streams one request's tokens faster than 20,000 tokens/s (the
/// fastest single-stream decode published is about 2,500 tokens/s), so a
/// point below 50 µs a token is not a measurement of a model.
pub const MIN_TIME_PER_TOKEN_S: f64 = 50e-6;

fn fail(file: &str, p: &Params, index: usize, why: String) -> DeriveError {
    DeriveError::Request {
        file: file.to_string(),
        index,
        request_id: format!("{}{index}", p.request_id_prefix),
        why,
    }
}

/// Derives the records of a vLLM result object (the rules in the module
/// documentation).
pub fn derive(obj: &ResultObject, p: &Params, file: &str) -> Result<Records, DeriveError> {
    let a = &obj.arrays;
    let missing = |array| DeriveError::Missing {
        file: file.to_string(),
        array,
    };
    let Some(start) = a.start_times.as_ref() else {
        return Err(DeriveError::NoStartTimes {
            file: file.to_string(),
            why: if a.is_empty() {
                "the file holds no per-request arrays at all (summary only)".into()
            } else {
                "it has no start_times array: benchmark_serving.py and vllm bench serve before start_times were saved, and SGLang's bench_serving, keep none".into()
            },
        });
    };
    let ttfts = a.ttfts.as_ref().ok_or_else(|| missing("ttfts"))?;
    let itls = a.itls.as_ref().ok_or_else(|| missing("itls"))?;
    let input = a.input_lens.as_ref().ok_or_else(|| missing("input_lens"))?;
    let output = a
        .output_lens
        .as_ref()
        .ok_or_else(|| missing("output_lens"))?;
    let kinds = a.error_kinds.as_ref().ok_or_else(|| missing("errors"))?;
    let n = start.len();
    shape(file, p, &a.lengths(), n)?;
    let date = match obj.get("date") {
        Some(Scalar::Str(s)) => s.clone(),
        _ => {
            return Err(DeriveError::Date {
                file: file.to_string(),
                why: "no \"date\" string".into(),
            })
        }
    };
    let d = date_unix(&date, &p.utc_offset).map_err(|why| DeriveError::Date {
        file: file.to_string(),
        why,
    })? as f64
        + p.anchor_adjust_s;
    if p.warmup > 0 {
        return Err(DeriveError::Shape {
            file: file.to_string(),
            why: format!(
                "point {:?} declares {} warmup request(s), but vllm bench serve keeps no warmup in its result file (its warmup requests are not saved): every request of the file was measured, so none can be relabelled a warmup; plan the point with warmup 0",
                p.point, p.warmup
            ),
        });
    }
    let lat = a.latencies.as_ref();
    // Offsets from the request's start: (first token, finish) for ok ones.
    let mut offsets: Vec<(Option<f64>, Option<f64>)> = Vec::with_capacity(n);
    for i in 0..n {
        let ttft = ttfts[i];
        let gaps = Gaps {
            sum: itls.sum(i),
            count: itls.count(i),
            negative: itls.has_negative(i),
        };
        let bad = |why: String| fail(file, p, i, why);
        readings(i, start[i], ttft, gaps, lat.map(|l| l[i])).map_err(&bad)?;
        if kinds[i] != RequestError::None {
            let first = (ttft > 0.0).then_some(ttft);
            offsets.push((first, None));
            continue;
        }
        if output[i] < 1.0 {
            return Err(bad(format!(
                "succeeded with output_lens[{i}] = {}: an ok record has at least one output token",
                output[i]
            )));
        }
        let sum = gaps.sum;
        let end = match lat {
            None => ttft + sum,
            Some(l) => {
                agree(i, l[i], ttft, sum, gaps.count, start[i]).map_err(&bad)?;
                l[i]
            }
        };
        offsets.push((Some(ttft), Some(end)));
    }
    per_token_floor(file, &offsets, output)?;
    let t_end = (0..n)
        .map(|i| start[i] + offsets[i].1.or(offsets[i].0).unwrap_or(0.0))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut records = Vec::with_capacity(n);
    for i in 0..n {
        let sent_at = d + (start[i] - t_end);
        let status = match kinds[i] {
            RequestError::None => Status::Ok,
            RequestError::Timeout => Status::Timeout,
            RequestError::Other => Status::Error,
        };
        let (first, end) = offsets[i];
        let first_token_at = first.map(|t| sent_at + t);
        let finished_at = match (end, lat, first_token_at) {
            (None, _, _) => None,
            (Some(_), None, Some(ft)) => Some(ft + itls.sum(i)),
            (Some(e), _, _) => Some(sent_at + e),
        };
        let times = [Some(sent_at), first_token_at, finished_at];
        if times.iter().flatten().any(|t| !t.is_finite()) {
            return Err(fail(
                file,
                p,
                i,
                "its times do not fit a number once anchored (the values are out of any clock's range)".into(),
            ));
        }
        records.push(Record {
            request_id: format!("{}{i}", p.request_id_prefix),
            point: p.point.clone(),
            warmup: false,
            status: status.as_str(),
            sent_at,
            first_token_at,
            finished_at,
            input_tokens: count(input[i]),
            output_tokens: count(output[i]),
            source_index: i,
            anchor_precision_s: ANCHOR_PRECISION_S,
        });
    }
    let window_end = client_end(obj, start, &offsets, kinds).map(|e| d + (e - t_end));
    let adjust = if p.anchor_adjust_s == 0.0 {
        String::new()
    } else {
        format!(", moved by {:+} s", p.anchor_adjust_s)
    };
    Ok(Records {
        records,
        window_end,
        anchor: format!(
            "sent_at from start_times, the end of the last request anchored to the file's date {date} read at UTC{}{adjust}: one-second precision",
            p.utc_offset
        ),
    })
}

/// The arrays' shape: every array holds `n` entries, at least one and no
/// more than a point may hold or than the point declares, so that nothing
/// is rendered of a file that is not the point's result.
fn shape(
    file: &str,
    p: &Params,
    lengths: &[(&'static str, usize)],
    n: usize,
) -> Result<(), DeriveError> {
    let refuse = |why: String| DeriveError::Shape {
        file: file.to_string(),
        why,
    };
    if lengths.iter().any(|(_, l)| *l != n) {
        return Err(DeriveError::Lengths {
            file: file.to_string(),
            lengths: lengths
                .iter()
                .map(|(k, l)| format!("{k} {l}"))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    if n == 0 {
        return Err(refuse(
            "the per-request arrays are empty: no request to import".into(),
        ));
    }
    if n as u64 > MAX_CLIENT_RECORDS {
        return Err(refuse(format!(
            "{n} requests; a point holds at most {MAX_CLIENT_RECORDS} client records (contract section 6): split the run into points"
        )));
    }
    if n as u64 > p.declared {
        return Err(refuse(format!(
            "holds {n} requests; the point {:?} declares {} (requests + warmup): this is not that point's result",
            p.point, p.declared
        )));
    }
    Ok(())
}

/// Request `i`'s own clock readings, failed requests included: its start
/// a reading of a clock (finite, not negative, at most [`MAX_CLOCK_S`]),
/// its TTFT, gaps and latency durations (finite, not negative), its end
/// reading within the clock's range too.
/// A request's inter-token gaps as the reader keeps them: their sum (added
/// in order from 0.0), count and sign.
#[derive(Clone, Copy)]
struct Gaps {
    sum: f64,
    count: usize,
    negative: bool,
}

fn readings(i: usize, start: f64, ttft: f64, gaps: Gaps, lat: Option<f64>) -> Result<(), String> {
    if !(start.is_finite() && (0.0..=MAX_CLOCK_S).contains(&start)) {
        return Err(format!(
            "start_times[{i}] = {start} is not a clock reading (finite, from 0 to {MAX_CLOCK_S} s, where a double resolves a microsecond): import the result file the client wrote, unchanged"
        ));
    }
    if !(ttft.is_finite() && ttft >= 0.0) {
        return Err(format!(
            "ttfts[{i}] = {ttft} is not a duration (finite, not negative)"
        ));
    }
    if gaps.negative || !gaps.sum.is_finite() {
        return Err(format!("itls[{i}] holds a negative or non-finite gap"));
    }
    if let Some(l) = lat {
        if !(l.is_finite() && l >= 0.0 && start + l <= MAX_CLOCK_S) {
            return Err(format!(
                "latencies[{i}] = {l} is not a duration (finite, not negative, ending within the clock's range)"
            ));
        }
    }
    Ok(())
}

/// An ok request's latency against its token times: never shorter than
/// `ttft + sum(itls)` beyond the rounding of the request's own clock
/// readings ([`agreement_tolerance`]), never longer than that plus the
/// stream's tail ([`MAX_STREAM_TAIL_S`]).
fn agree(i: usize, lat: f64, ttft: f64, sum: f64, k: usize, start: f64) -> Result<(), String> {
    let tol = agreement_tolerance(k, start.abs() + lat.abs());
    let diff = lat - (ttft + sum);
    if diff < -tol {
        return Err(format!(
            "latencies[{i}] = {lat} s but ttfts[{i}] + sum(itls[{i}]) = {} s: the latency is shorter than the request's own token times by {:e} s, more than the rounding of its clock readings allows ({tol:e} s); the file contradicts itself: import the result file the client wrote, unchanged",
            ttft + sum,
            -diff
        ));
    }
    if diff > MAX_STREAM_TAIL_S {
        return Err(format!(
            "latencies[{i}] = {lat} s but ttfts[{i}] + sum(itls[{i}]) = {} s: the stream went on {diff} s after its last token, more than the {MAX_STREAM_TAIL_S} s tail a stream has after it; the file contradicts itself: import the result file the client wrote, unchanged",
            ttft + sum
        ));
    }
    Ok(())
}

/// The point's mean time per output token (over its ok requests of more
/// than one token) is at least [`MIN_TIME_PER_TOKEN_S`].
fn per_token_floor(
    file: &str,
    offsets: &[(Option<f64>, Option<f64>)],
    output: &[f64],
) -> Result<(), DeriveError> {
    let (mut time, mut tokens) = (0.0, 0.0);
    for (i, o) in offsets.iter().enumerate() {
        if let (Some(first), Some(end)) = *o {
            if output[i] > 1.0 {
                time += end - first;
                tokens += output[i] - 1.0;
            }
        }
    }
    if tokens > 0.0 && time / tokens < MIN_TIME_PER_TOKEN_S {
        return Err(DeriveError::Shape {
            file: file.to_string(),
            why: format!(
                "its ok requests stream {:e} s per output token on average, faster than the {MIN_TIME_PER_TOKEN_S:e} s a token no serving stack beats (20,000 tokens/s for one request): not a measurement of a model",
                time / tokens
            ),
        });
    }
    Ok(())
}

/// The client's own end of the benchmark, on its clock, where a failed
/// request has no end of its own (so the last end the records show may
/// come before the client stopped waiting for it): the first send plus
/// the file's `duration`. `None` when every request has an end, or the
/// file gives no usable `duration`.
fn client_end(
    obj: &ResultObject,
    start: &[f64],
    offsets: &[(Option<f64>, Option<f64>)],
    kinds: &[RequestError],
) -> Option<f64> {
    let endless =
        (0..start.len()).any(|i| kinds[i] != RequestError::None && offsets[i].1.is_none());
    if !endless {
        return None;
    }
    let duration = obj.num("duration").filter(|d| d.is_finite() && *d >= 0.0)?;
    let first = start.iter().copied().fold(f64::INFINITY, f64::min);
    Some(first + duration).filter(|e| *e <= MAX_CLOCK_S)
}

/// A count the reader has already checked to be a non-negative integer.
fn count(v: f64) -> u64 {
    v as u64
}

/// The one result object of a file, or why there is not one.
pub fn single(objects: &[ResultObject], file: &str) -> Result<usize, DeriveError> {
    match objects.len() {
        1 => Ok(0),
        n => Err(DeriveError::Shape {
            file: file.to_string(),
            why: format!(
                "the file holds {n} results (--append-result); a point is imported from one result: split the file"
            ),
        }),
    }
}

/// The file's own consistency by `results check`: `Ok` with its verdict,
/// or `Err` naming the checks that fail.
pub fn consistency(objects: Vec<ResultObject>, file: &str) -> Result<String, String> {
    let checked =
        check_objects(objects, Format::Vllm, Path::new(file)).map_err(|e| e.to_string())?;
    let report = checked.finish();
    if report.ok() {
        return Ok(format!(
            "results check: {}",
            report.verdict().unwrap_or("VERIFIED")
        ));
    }
    let failed: Vec<String> = report
        .failures()
        .take(6)
        .map(|c| format!("{} ({})", c.id, c.detail))
        .collect();
    Err(format!(
        "its summary disagrees with its own per-request arrays (results check): {}{}",
        failed.join("; "),
        if report.failures().count() > 6 {
            "; ..."
        } else {
            ""
        }
    ))
}
