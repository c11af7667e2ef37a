//! What a router journal recorded of one request ([`Terminals`]), and how
//! the checks judge it against the client's record ([`timing_problem`],
//! [`failures`]).

use std::num::NonZeroU32;

use crate::run::qualification::{JournalEvent, Status};
use crate::run::records::ClientId;

/// The journal event proofpack reads as the router's first token.
pub const FIRST_TOKEN_EVENT: &str = "first_token";

/// What an event is to the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Terminal,
    FirstToken,
    Other,
}

impl Kind {
    pub(super) fn of(event: &str) -> Kind {
        if event == JournalEvent::TERMINAL {
            Kind::Terminal
        } else if event == FIRST_TOKEN_EVENT {
            Kind::FirstToken
        } else {
            Kind::Other
        }
    }
}

/// What the journal recorded of one request id: 72 bytes (times whose
/// presence a count already says are plain `f64`, lines are `u32`, see
/// [`crate::run::records::MAX_LINES`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Terminals {
    /// Number of terminal events.
    pub count: u32,
    /// Number of `first_token` events.
    pub first_tokens: u32,
    /// Status of the first terminal event.
    pub status: Option<Status>,
    /// Line of the first event for this id (0 before any). For a request
    /// judged while streaming it only says that there was one (see
    /// `Slot::terminals`): the requests named by it, those without a
    /// client record, are never judged that way.
    pub first_line: u32,
    /// Lines of the first two terminal events.
    pub terminal_lines: [u32; 2],
    /// Line of the earliest event.
    pub first_at_line: u32,
    /// The first event out of time order (earlier than the one before it,
    /// or after the terminal event), as its line.
    pub disorder: Option<NonZeroU32>,
    /// Earliest event time.
    pub first_at: f64,
    /// Time of the last event read (file order).
    pub last_at: f64,
    /// Time of the first terminal event (when `count > 0`).
    pub(super) terminal_time: f64,
    /// Time and line of the first `first_token` event (when
    /// `first_tokens > 0`).
    pub(super) first_token_time: f64,
    pub(super) first_token_line: u32,
}

impl Terminals {
    /// Time of the first terminal event.
    pub fn terminal_at(&self) -> Option<f64> {
        (self.count > 0).then_some(self.terminal_time)
    }
    /// Time and line of the first `first_token` event.
    pub fn first_token(&self) -> Option<(f64, u32)> {
        (self.first_tokens > 0).then_some((self.first_token_time, self.first_token_line))
    }

    /// Takes one event (at `line`, `at` seconds) into account.
    pub(super) fn take(&mut self, line: u32, at: f64, kind: Kind, status: Option<Status>) {
        let first_event = self.first_line == 0;
        let after_terminal = self.count > 0 && kind != Kind::Terminal;
        if self.disorder.is_none() && !first_event && (at < self.last_at || after_terminal) {
            self.disorder = NonZeroU32::new(line);
        }
        self.last_at = at;
        if first_event || at < self.first_at {
            self.first_at = at;
            self.first_at_line = line;
        }
        if first_event {
            self.first_line = line;
        }
        match kind {
            Kind::Terminal => {
                self.count = self.count.saturating_add(1);
                if self.count == 1 {
                    self.status = status;
                    self.terminal_time = at;
                    self.terminal_lines[0] = line;
                } else if self.count == 2 {
                    self.terminal_lines[1] = line;
                }
            }
            Kind::FirstToken => {
                self.first_tokens = self.first_tokens.saturating_add(1);
                if self.first_tokens == 1 {
                    self.first_token_time = at;
                    self.first_token_line = line;
                }
            }
            Kind::Other => {}
        }
    }
}

/// What the checks find of one client request: no exactly-one terminal
/// event, a terminal status other than the client's, times the journal
/// does not witness (as `point.rs` decides them).
pub(crate) fn failures(c: &ClientId, t: Option<&Terminals>, tol: f64) -> [bool; 3] {
    [
        t.is_none_or(|t| t.count != 1),
        t.is_some_and(|t| t.count == 1 && t.status != Some(c.status)),
        timing_problem(c, t, tol).is_some(),
    ]
}

/// Why the journal does not witness a client record's times, if it does
/// not: `t` is what it recorded of the request, `None` when it recorded no
/// event of it (then it witnesses none of its times).
pub fn timing_problem(c: &ClientId, t: Option<&Terminals>, tol: f64) -> Option<String> {
    let Some(t) = t.filter(|t| t.first_line != 0) else {
        return Some("the journal has no event of it: none of its times is witnessed".into());
    };
    if let Some(line) = t.disorder {
        return Some(format!(
            "its events are not in time order (line {line} is earlier than the event before it, or follows the terminal event)"
        ));
    }
    let first = t.first_at;
    if first < c.sent_at - tol {
        return Some(format!(
            "the journal saw it at {first:.6} (line {}), {:.3} s before the client says it was sent ({:.6})",
            t.first_at_line,
            c.sent_at - first,
            c.sent_at
        ));
    }
    match (c.first_token_at(), t.first_token(), t.first_tokens) {
        (_, _, n) if n > 1 => return Some(format!("{n} first_token events")),
        // A failed request's first token is read by no metric, and a
        // router's record of a failure may not say whether a chunk came:
        // its absence from the journal contradicts nothing.
        (Some(ft), None, _) if c.status == Status::Ok => {
            return Some(format!(
                "the client has first_token_at {ft:.6} but the journal has no first_token event"
            ))
        }
        (None, Some((at, line)), _) => {
            return Some(format!(
                "the journal has a first_token event at {at:.6} (line {line}) but the client has first_token_at null"
            ))
        }
        (Some(ft), Some((at, line)), _) if (ft - at).abs() > tol => {
            return Some(format!(
                "first token at {ft:.6} by the client, {at:.6} by the journal (line {line}): {:+.3} s apart",
                ft - at
            ))
        }
        _ => {}
    }
    if let (Some(fin), Some(at)) = (c.finished_at(), t.terminal_at()) {
        if (fin - at).abs() > tol {
            return Some(format!(
                "finished at {fin:.6} by the client, terminal event at {at:.6} (line {}): {:+.3} s apart",
                t.terminal_lines[0],
                fin - at
            ));
        }
    }
    None
}
