//! What is kept of a request whose events disagree with its client record
//! past the first [`crate::run::journal::FULL_RECORDS`] of its point.

use std::num::NonZeroU32;

use crate::run::journal::terminals::{Kind, Terminals};
use crate::run::qualification::Status;
use crate::run::records::ClientId;

/// What decides the checks of a request whose events disagree with its
/// client record (`c`), without the lines and times they quote: each field
/// is what [`Terminals`] would give the checks, as `point.rs` and
/// [`crate::run::journal::timing_problem`] read it (a property test holds the two to the same
/// outcomes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Compact {
    /// Terminal events: 0, 1, or 2 for two or more.
    pub(super) terminals: u8,
    /// Status of the first terminal event.
    pub(super) status: Option<Status>,
    /// `first_token` events: 0, 1, or 2 for two or more.
    first_tokens: u8,
    /// An event out of time order or after the terminal event.
    disorder: bool,
    /// An event before the client's send, beyond the tolerance.
    early: bool,
    /// The first `first_token` event beyond the tolerance of the client's
    /// time, or the client has none.
    first_token_off: bool,
    /// The first terminal event beyond the tolerance of the client's
    /// finish (when it has one).
    finish_off: bool,
}

const STATUSES: [Status; 4] = [
    Status::Ok,
    Status::Error,
    Status::Timeout,
    Status::Cancelled,
];

impl Compact {
    pub(super) fn pack(self) -> u32 {
        let status = self
            .status
            .and_then(|s| STATUSES.iter().position(|&x| x == s))
            .map_or(0, |i| i as u32 + 1);
        u32::from(self.terminals)
            | status << 2
            | u32::from(self.first_tokens) << 5
            | u32::from(self.disorder) << 7
            | u32::from(self.early) << 8
            | u32::from(self.first_token_off) << 9
            | u32::from(self.finish_off) << 10
    }

    pub(super) fn unpack(v: u32) -> Compact {
        let status = (v >> 2) & 7;
        Compact {
            terminals: (v & 3) as u8,
            status: (status > 0).then(|| STATUSES[(status as usize - 1).min(3)]),
            first_tokens: ((v >> 5) & 3) as u8,
            disorder: v & 1 << 7 != 0,
            early: v & 1 << 8 != 0,
            first_token_off: v & 1 << 9 != 0,
            finish_off: v & 1 << 10 != 0,
        }
    }

    /// What a request whose events agreed with `c` so far has shown: a
    /// terminal event (then with the client's status) and a `first_token`
    /// event, or not.
    pub(super) fn agreeing(terminal: bool, first_token: bool, c: &ClientId) -> Compact {
        Compact {
            terminals: u8::from(terminal),
            status: terminal.then_some(c.status),
            first_tokens: u8::from(first_token),
            ..Compact::default()
        }
    }

    /// Takes one event, after `last_at` when `seen` (see [`Terminals::take`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take(
        &mut self,
        c: &ClientId,
        seen: bool,
        last_at: f64,
        at: f64,
        kind: Kind,
        status: Option<Status>,
        tol: f64,
    ) {
        let after_terminal = self.terminals > 0 && kind != Kind::Terminal;
        if seen && (at < last_at || after_terminal) {
            self.disorder = true;
        }
        if at < c.sent_at - tol {
            self.early = true;
        }
        match kind {
            Kind::Terminal => {
                if self.terminals == 0 {
                    self.status = status;
                    self.finish_off = c.finished_at().is_some_and(|fin| (fin - at).abs() > tol);
                }
                self.terminals = (self.terminals + 1).min(2);
            }
            Kind::FirstToken => {
                if self.first_tokens == 0 {
                    self.first_token_off =
                        c.first_token_at().is_none_or(|ft| (ft - at).abs() > tol);
                }
                self.first_tokens = (self.first_tokens + 1).min(2);
            }
            Kind::Other => {}
        }
    }

    /// A record of the events that the checks judge as they would judge
    /// the request's full record (every outcome the same), but whose lines
    /// and times are not the journal's: for a request whose failures are
    /// counted, not quoted.
    pub(super) fn record(&self, c: &ClientId) -> Terminals {
        Terminals {
            count: u32::from(self.terminals),
            first_tokens: u32::from(self.first_tokens),
            status: self.status,
            first_line: 1,
            terminal_lines: [1, 1],
            first_at_line: 1,
            disorder: self.disorder.then_some(NonZeroU32::MIN),
            first_at: if self.early {
                f64::NEG_INFINITY
            } else {
                c.sent_at
            },
            last_at: c.sent_at,
            terminal_time: if self.finish_off {
                f64::INFINITY
            } else {
                c.finished_at().unwrap_or(c.sent_at)
            },
            first_token_time: match c.first_token_at() {
                Some(_) if self.first_token_off => f64::INFINITY,
                Some(ft) => ft,
                None => c.sent_at,
            },
            first_token_line: 1,
        }
    }
}
