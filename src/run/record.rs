//! The records other programs write, as proofpack reads them (spec section
//! 6): client records and router journal events. Every field the spec names
//! is required and strictly typed, statuses are case-sensitive, but extra
//! fields are tolerated so that a client may log more than proofpack reads.

use serde::Deserialize;

/// A request's final status (case-sensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Completed normally.
    Ok,
    /// Failed with an error.
    Error,
    /// Timed out.
    Timeout,
    /// Cancelled.
    Cancelled,
}

impl Status {
    /// The spelling used in records.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Cancelled => "cancelled",
        }
    }
}

mod one_pass;

/// The longest request id proofpack reads (bytes): what
/// a verification keeps of every request includes its id, so an id's
/// length is bounded like the records' count. Benchmark clients write ids
/// of a few dozen bytes (a prefix and an index, a UUID).
pub const MAX_REQUEST_ID_BYTES: usize = 256;

/// Refuses a request id longer than [`MAX_REQUEST_ID_BYTES`], quoting only
/// its beginning.
fn id_fits(id: &str) -> Result<(), String> {
    if id.len() <= MAX_REQUEST_ID_BYTES {
        return Ok(());
    }
    let mut cut = 32;
    while !id.is_char_boundary(cut) {
        cut -= 1;
    }
    Err(format!(
        "request_id of {} bytes (beginning {:?}); at most {MAX_REQUEST_ID_BYTES}",
        id.len(),
        &id[..cut]
    ))
}

/// One client record (a JSON object; read in one pass by [`one_pass`]).
#[derive(Debug, Clone)]
pub struct ClientRecord {
    /// Request id, unique within the point.
    pub request_id: String,
    /// The point whose file holds this record.
    pub point: String,
    /// Warmup requests are excluded from metrics.
    pub warmup: bool,
    /// Final status.
    pub status: Status,
    /// Send time, unix seconds.
    pub sent_at: f64,
    /// First token time, unix seconds (required key, may be null).
    pub first_token_at: Option<f64>,
    /// Completion time, unix seconds (required key, may be null).
    pub finished_at: Option<f64>,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl ClientRecord {
    /// Checks the record's internal consistency (times ordered, an ok
    /// request has a first token and a finish time).
    pub fn validate(&self) -> Result<(), String> {
        if self.request_id.is_empty() {
            return Err("empty request_id".into());
        }
        id_fits(&self.request_id)?;
        if self.status == Status::Ok {
            let (Some(ft), Some(fin)) = (self.first_token_at, self.finished_at) else {
                return Err(format!(
                    "request {:?}: status ok needs first_token_at and finished_at",
                    self.request_id
                ));
            };
            if !(ft >= self.sent_at && fin >= ft) {
                return Err(format!(
                    "request {:?}: times out of order (sent_at {} first_token_at {ft} finished_at {fin})",
                    self.request_id, self.sent_at
                ));
            }
            if self.output_tokens == 0 {
                return Err(format!(
                    "request {:?}: status ok with 0 output tokens",
                    self.request_id
                ));
            }
        }
        if let Some(fin) = self.finished_at {
            if fin < self.sent_at {
                return Err(format!(
                    "request {:?}: finished_at {fin} before sent_at {}",
                    self.request_id, self.sent_at
                ));
            }
        }
        Ok(())
    }
}

/// One router journal event (a JSON object; read in one pass by
/// [`one_pass`], its strings borrowed from the line when they hold no
/// escape).
#[derive(Debug, Clone)]
pub struct JournalEvent<'a> {
    /// Request id.
    pub request_id: std::borrow::Cow<'a, str>,
    /// Point name.
    pub point: std::borrow::Cow<'a, str>,
    /// Event name; `terminal` ends a request.
    pub event: std::borrow::Cow<'a, str>,
    /// Event time, unix seconds.
    pub at: f64,
    /// Final status, on terminal events only.
    pub status: Option<Status>,
}

impl JournalEvent<'_> {
    /// The terminal event's name.
    pub const TERMINAL: &'static str = "terminal";

    /// Checks that `status` is present exactly on terminal events (and
    /// that the request id is at most [`MAX_REQUEST_ID_BYTES`]).
    pub fn validate(&self) -> Result<(), String> {
        id_fits(&self.request_id)?;
        match (self.event == Self::TERMINAL, self.status.is_some()) {
            (true, false) => Err(format!(
                "request {:?}: terminal event without status",
                self.request_id
            )),
            (false, true) => Err(format!(
                "request {:?}: status on non-terminal event {:?}",
                self.request_id, self.event
            )),
            _ => Ok(()),
        }
    }
}
