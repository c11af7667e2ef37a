//! Router journals (spec section 6): read once, line by line, under the
//! rules of [`crate::run::records::for_each_line`].
//!
//! An event of a point whose client records were read before the
//! journal (the order `seal` writes when the records' paths sort
//! before the journal's, and the order a run directory is read in) is
//! judged at once against the client's record of its request: what is kept
//! is a 13-byte [`Slot`] per client request, and the full record of its
//! events ([`Terminals`]) only for a request whose events stop agreeing with
//! the client's, from that event on. Events of a point whose records come
//! later are kept per request id until the checks. Both give the
//! same checks, word for word; a property test holds them to it.
//!
//! Past [`FULL_RECORDS`] disagreeing requests of a point, a request keeps
//! only what decides its checks, in its slot (`compact.rs`), and the
//! journal is read once more for the lines and times of the failures the
//! checks quote ([`JournalSummary::read_details`]); unread, its checks fail.
//! What a journal recorded of a request, and how the checks judge it
//! against the client's record, is in `terminals.rs`.

use std::collections::HashMap;
use std::io::{self, Read};

mod compact;
mod terminals;

use crate::run::idmap::IdMap;
use crate::run::qualification::{JournalEvent, Status};
use crate::run::records::{for_each_line, ClientId, ClientSummary, Problems};
use compact::Compact;
pub(crate) use terminals::failures;
use terminals::Kind;
pub use terminals::{timing_problem, Terminals, FIRST_TOKEN_EVENT};

/// Distinct request ids one router journal may hold over all its points:
/// what the journal witnessed per id is kept. Events of ids already
/// seen do not count, so an honest journal of four events per request
/// reaches it at four million requests.
pub const MAX_JOURNAL_REQUESTS: u64 = 4_000_000;

/// The distinct request ids of a journal that are read:
/// what its points declare (requests and warmups) and one more, never more
/// than [`MAX_JOURNAL_REQUESTS`]. An honest journal holds the ids of its
/// points' requests; one past them is an orphan the checks name, and a
/// second makes the journal malformed: what a verification holds of a
/// journal is bounded by what the run declares.
pub fn journal_ids_to_read(declared: u64) -> IdLimit {
    let n = declared.saturating_add(1);
    if n < MAX_JOURNAL_REQUESTS {
        IdLimit::Declared(n)
    } else {
        IdLimit::Fixed(MAX_JOURNAL_REQUESTS)
    }
}

/// How many distinct request ids of a journal are read, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdLimit {
    /// A fixed limit ([`MAX_JOURNAL_REQUESTS`], or another in tests).
    Fixed(u64),
    /// What the journal's points declare, plus one.
    Declared(u64),
}

impl IdLimit {
    fn max(self) -> u64 {
        match self {
            IdLimit::Fixed(n) | IdLimit::Declared(n) => n,
        }
    }

    fn stop(self, file: &str, line: u32) -> String {
        match self {
            IdLimit::Fixed(n) => format!(
                "{file}:{line}: events of more than {n} request ids; proofpack reads at most that many per journal, so reading of this file stopped"
            ),
            IdLimit::Declared(n) => format!(
                "{file}:{line}: events of more request ids than its points declare ({} with their warmups); reading of this file stopped at the second id past them (what a verification holds is bounded by what the run declares)",
                n - 1
            ),
        }
    }
}

/// Requests of a point whose events disagree with their client records that
/// keep the full record of their events (72 bytes each);
/// past them, a request keeps only what decides its checks (`Compact`,
/// in its slot), and the lines and times the checks quote are read again
/// from the journal ([`JournalSummary::read_details`]).
pub const FULL_RECORDS: usize = 4096;

/// What the journal has shown of one client request while every event
/// agreed with the client's record: no event before the send
/// (beyond the tolerance), in time order, at most one `first_token` and one
/// terminal event, each at the client's time within the tolerance, the
/// terminal one with the client's status and last. Packed: 13 bytes a
/// request, not 16.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, packed)]
pub struct Slot {
    /// Time of the last event.
    last_at: f64,
    /// Line of the terminal event (0: none yet).
    terminal_line: u32,
    flags: u8,
}

const SEEN: u8 = 1;
const FIRST_TOKEN: u8 = 2;
/// The request's events disagreed with the client: they are in `promoted`,
/// at the index the slot's `terminal_line` then holds.
const PROMOTED: u8 = 4;
/// With [`PROMOTED`]: past [`FULL_RECORDS`], the slot's `terminal_line`
/// holds a packed [`Compact`], its `last_at` the time of the last event.
const COMPACT: u8 = 8;

impl Slot {
    /// Whether an event keeps the slot agreeing with client record `c`;
    /// when it does, takes it.
    #[allow(clippy::too_many_arguments)]
    fn agrees(
        &mut self,
        c: &ClientId,
        line: u32,
        at: f64,
        kind: Kind,
        status: Option<Status>,
        tol: f64,
    ) -> bool {
        let seen = self.flags & SEEN != 0;
        // The comparisons the checks make (point.rs timing_problem),
        // negated: every time is finite, so no comparison is unordered.
        let fits = if !seen {
            at >= c.sent_at - tol
        } else {
            !(at < self.last_at || (self.terminal_line != 0 && kind != Kind::Terminal))
        };
        let fits = fits
            && match kind {
                Kind::Terminal => {
                    self.terminal_line == 0
                        && status == Some(c.status)
                        && c.finished_at().is_none_or(|fin| (fin - at).abs() <= tol)
                }
                Kind::FirstToken => {
                    self.flags & FIRST_TOKEN == 0
                        && c.first_token_at().is_some_and(|ft| (ft - at).abs() <= tol)
                }
                Kind::Other => true,
            };
        if fits {
            self.flags |= SEEN;
            self.last_at = at;
            match kind {
                Kind::Terminal => self.terminal_line = line,
                Kind::FirstToken => self.flags |= FIRST_TOKEN,
                Kind::Other => {}
            }
        }
        fits
    }

    /// The record of the slot's events, for a slot that agrees with `c`,
    /// as the checks see it: every value they compare or quote is exact;
    /// the earliest time is the last one (the same unless an event came out
    /// of order, which disagrees), and the times of the `first_token` and
    /// terminal events are the client's (within the tolerance of them, so
    /// compared the same). The lines of the first and earliest event, and
    /// of the `first_token` event, are quoted only for events that
    /// disagree, and are not kept.
    fn terminals(&self, c: &ClientId) -> Terminals {
        let terminal = self.terminal_line != 0;
        let first_token = self.flags & FIRST_TOKEN != 0;
        Terminals {
            count: u32::from(terminal),
            first_tokens: u32::from(first_token),
            status: terminal.then_some(c.status),
            first_line: 1,
            terminal_lines: [self.terminal_line, 0],
            first_at_line: 0,
            disorder: None,
            first_at: self.last_at,
            last_at: self.last_at,
            terminal_time: c.finished_at().unwrap_or(self.last_at),
            first_token_time: c.first_token_at().unwrap_or(self.last_at),
            first_token_line: 0,
        }
    }
}

/// A point's events judged while the journal streamed (see the module).
#[derive(Debug, Default)]
pub struct Judged {
    /// One per client request, in the order of the client's id map.
    slots: Vec<Slot>,
    /// The record of the events of each request whose events disagreed, in
    /// the order they came to disagree; its slot holds the index (a list,
    /// not a map by request: 72 bytes a request, where a map took about
    /// 250 while it grew).
    promoted: Vec<Terminals>,
    /// How many of them keep their full record (see [`FULL_RECORDS`]).
    full_records: usize,
    /// Requests kept as [`Compact`].
    compact: usize,
    /// Whether [`JournalSummary::read_details`] read the journal again.
    details_read: bool,
    /// The full record of the compact requests whose failures the checks
    /// quote, read again ([`JournalSummary::read_details`]), by their place.
    details: HashMap<u32, Terminals>,
    /// Journal request ids without a client record, with their events, in
    /// the order of their first event.
    orphans: IdMap<Terminals>,
}

impl Judged {
    fn take(&mut self, k: usize, c: &ClientId, ev: (u32, f64, Kind, Option<Status>), tol: f64) {
        let (line, at, kind, status) = ev;
        let slot = &mut self.slots[k];
        if slot.flags & COMPACT != 0 {
            let mut m = Compact::unpack(slot.terminal_line);
            m.take(c, true, slot.last_at, at, kind, status, tol);
            slot.terminal_line = m.pack();
            slot.last_at = at;
            return;
        }
        if slot.flags & PROMOTED != 0 {
            if let Some(t) = self.promoted.get_mut(slot.terminal_line as usize) {
                t.take(line, at, kind, status);
            }
            return;
        }
        let before = *slot;
        if slot.agrees(c, line, at, kind, status, tol) {
            return;
        }
        if self.promoted.len() >= self.full_records {
            let seen = before.flags & SEEN != 0;
            let mut m = if seen {
                Compact::agreeing(
                    before.terminal_line != 0,
                    before.flags & FIRST_TOKEN != 0,
                    c,
                )
            } else {
                Compact::default()
            };
            m.take(c, seen, before.last_at, at, kind, status, tol);
            slot.flags |= PROMOTED | COMPACT | SEEN;
            slot.terminal_line = m.pack();
            slot.last_at = at;
            self.compact += 1;
            return;
        }
        let mut t = if before.flags & SEEN != 0 {
            before.terminals(c)
        } else {
            Terminals::default()
        };
        t.take(line, at, kind, status);
        // Seen, as the journal's count of distinct ids needs to know. The
        // index fits: there are fewer promoted requests than client records,
        // whose lines are `u32`.
        slot.flags |= PROMOTED | SEEN;
        slot.terminal_line = self.promoted.len() as u32;
        self.promoted.push(t);
    }

    /// The record of a promoted slot's events.
    fn promoted(&self, slot: &Slot) -> Option<&Terminals> {
        self.promoted.get(slot.terminal_line as usize)
    }
}

/// The events of one point of a journal.
#[derive(Debug)]
pub enum PointEvents {
    /// Kept per request id (the point's client records came later or are
    /// derived from a source file).
    Kept(IdMap<Terminals>),
    /// Judged while streaming against the point's client records.
    Judged(Judged),
}

impl PointEvents {
    /// What the journal recorded of the `k`-th request of the client's id
    /// map, `rid` with record `c`; `None` when it has no event of it.
    pub fn of(&self, k: usize, rid: &str, c: &ClientId) -> Option<Terminals> {
        match self {
            PointEvents::Kept(map) => map.get(rid).cloned(),
            PointEvents::Judged(j) => {
                let slot = j.slots.get(k)?;
                if slot.flags & COMPACT != 0 {
                    Some(
                        j.details
                            .get(&(k as u32))
                            .cloned()
                            .unwrap_or_else(|| Compact::unpack(slot.terminal_line).record(c)),
                    )
                } else if slot.flags & PROMOTED != 0 {
                    j.promoted(slot).cloned()
                } else if slot.flags & SEEN != 0 {
                    Some(slot.terminals(c))
                } else {
                    None
                }
            }
        }
    }

    /// Journal request ids without a record in `client`, with the line of
    /// their first event, in the order of their first event.
    pub fn orphans<'a>(&'a self, client: &'a ClientSummary) -> Vec<(&'a str, u32)> {
        match self {
            PointEvents::Kept(map) => map
                .iter()
                .filter(|(rid, _)| !client.ids.contains_key(rid))
                .map(|(r, t)| (r, t.first_line))
                .collect(),
            PointEvents::Judged(j) => j.orphans.iter().map(|(r, t)| (r, t.first_line)).collect(),
        }
    }

    /// The status of the first terminal event of every request id of the
    /// journal that has one (client records of the point in `client`).
    pub fn terminal_statuses<'a>(
        &'a self,
        client: &'a ClientSummary,
    ) -> Box<dyn Iterator<Item = Option<Status>> + 'a> {
        let of = |t: &Terminals| (t.count > 0).then_some(t.status);
        match self {
            PointEvents::Kept(map) => Box::new(map.values().filter_map(of)),
            PointEvents::Judged(j) => Box::new(
                j.slots
                    .iter()
                    .zip(client.ids.values())
                    .filter_map(move |(slot, c)| {
                        if slot.flags & COMPACT != 0 {
                            let m = Compact::unpack(slot.terminal_line);
                            (m.terminals > 0).then_some(m.status)
                        } else if slot.flags & PROMOTED != 0 {
                            j.promoted(slot).and_then(of)
                        } else {
                            (slot.terminal_line != 0).then_some(Some(c.status))
                        }
                    })
                    .chain(j.orphans.values().filter_map(of)),
            ),
        }
    }
}

/// Everything kept of one journal file: per point name, its events.
#[derive(Debug, Default)]
pub struct JournalSummary {
    /// Point name -> its events.
    pub points: HashMap<String, PointEvents>,
    /// Malformed lines.
    pub problems: Problems,
    /// Events read.
    pub events: u64,
    /// Events of points that do not name this journal (undeclared points):
    /// point name -> (events, line of the first).
    pub undeclared: std::collections::BTreeMap<String, (u64, u32)>,
}

impl JournalSummary {
    /// True when a point keeps requests as `Compact` whose quoted lines
    /// and times must be read again ([`JournalSummary::read_details`]); a
    /// malformed journal's checks quote none.
    pub fn needs_details(&self) -> bool {
        self.problems.is_empty()
            && self
                .points
                .values()
                .any(|p| matches!(p, PointEvents::Judged(j) if j.compact > 0 && !j.details_read))
    }

    /// Reads the journal again (the same bytes: the caller makes sure) for
    /// the full record of each compact request whose failures the checks
    /// quote: the first [`crate::run::records::MAX_QUOTED`] requests of each kind
    /// of failure, in the client's order. `points` as for [`read_journal`].
    pub fn read_details(
        &mut self,
        r: &mut dyn Read,
        file: &str,
        points: &[(&str, Option<&ClientSummary>)],
        tol: f64,
    ) -> io::Result<()> {
        if !self.needs_details() {
            return Ok(());
        }
        // The compact requests whose failures are quoted, per point, each
        // with the full record the second reading makes of it.
        let mut wanted: HashMap<&str, (&ClientSummary, HashMap<u32, Terminals>)> = HashMap::new();
        for &(name, client) in points {
            let (Some(client), Some(PointEvents::Judged(j))) = (client, self.points.get(name))
            else {
                continue;
            };
            if j.compact == 0 {
                continue;
            }
            let events = &self.points[name];
            let mut quoted = [0usize; 3];
            let mut set = HashMap::new();
            for (k, (rid, c)) in client.ids.iter().enumerate() {
                if quoted.iter().all(|&n| n >= crate::run::records::MAX_QUOTED) {
                    break;
                }
                let t = events.of(k, rid, c);
                let mut needed = false;
                for (n, failed) in quoted.iter_mut().zip(failures(c, t.as_ref(), tol)) {
                    if failed && *n < crate::run::records::MAX_QUOTED {
                        *n += 1;
                        needed = true;
                    }
                }
                if needed && j.slots[k].flags & COMPACT != 0 {
                    set.insert(k as u32, Terminals::default());
                }
            }
            if !set.is_empty() {
                wanted.insert(name, (client, set));
            }
        }
        // The same bytes as the first reading: every line that reading took
        // parses again; any other is skipped as it was.
        let mut ignored = Problems::default();
        for_each_line(r, file, &mut ignored, |line, text| {
            let Ok(ev) = parse_event(text) else {
                return;
            };
            let Some((client, records)) = wanted.get_mut(&*ev.point) else {
                return;
            };
            let record = client
                .ids
                .entry_of(&ev.request_id)
                .and_then(|(k, _)| records.get_mut(&(k as u32)));
            if let Some(t) = record {
                t.take(line, ev.at, Kind::of(&ev.event), ev.status);
            }
        })?;
        for (name, (_, d)) in wanted {
            if let Some(PointEvents::Judged(j)) = self.points.get_mut(name) {
                j.details = d;
            }
        }
        for p in self.points.values_mut() {
            if let PointEvents::Judged(j) = p {
                j.details_read = true;
            }
        }
        Ok(())
    }
}

/// One journal line as an event the checks take, or why it is not one.
/// One parse: the reader refuses a repeated key itself.
fn parse_event(text: &str) -> Result<JournalEvent<'_>, String> {
    let ev: JournalEvent =
        serde_json::from_str(text).map_err(|e| format!("invalid journal event: {e}"))?;
    ev.validate().map_err(|e| e.to_string())?;
    if !ev.at.is_finite() {
        return Err("`at` is not a finite number".into());
    }
    Ok(ev)
}

/// Streams a router journal. `points` are the points that name it, each
/// with its client records when they were read before the journal (and are
/// the ones the checks use), to judge its events against at once; events of
/// any other point are undeclared. `tol` is the clock tolerance.
pub fn read_journal(
    r: &mut dyn Read,
    file: &str,
    points: &[(&str, Option<&ClientSummary>)],
    tol: f64,
) -> io::Result<JournalSummary> {
    read_journal_limited(r, file, points, tol, IdLimit::Fixed(MAX_JOURNAL_REQUESTS))
}

/// [`read_journal`] with a limit of distinct request ids other than
/// [`MAX_JOURNAL_REQUESTS`] (see [`journal_ids_to_read`]).
pub fn read_journal_limited(
    r: &mut dyn Read,
    file: &str,
    points: &[(&str, Option<&ClientSummary>)],
    tol: f64,
    limit: IdLimit,
) -> io::Result<JournalSummary> {
    read_journal_with(r, file, points, tol, limit, FULL_RECORDS)
}

/// [`read_journal_limited`] keeping the full record of at most
/// `full_records` disagreeing requests per point (see [`FULL_RECORDS`]).
pub fn read_journal_with(
    r: &mut dyn Read,
    file: &str,
    points: &[(&str, Option<&ClientSummary>)],
    tol: f64,
    limit: IdLimit,
    full_records: usize,
) -> io::Result<JournalSummary> {
    let max_requests = limit.max();
    let mut stopped = false;
    let mut requests = 0u64;
    let mut s = JournalSummary::default();
    let index: HashMap<&str, usize> = points.iter().enumerate().map(|(i, p)| (p.0, i)).collect();
    let mut kept: Vec<PointEvents> = points
        .iter()
        .map(|(_, client)| match client {
            Some(c) => PointEvents::Judged(Judged {
                slots: vec![Slot::default(); c.ids.len()],
                full_records,
                ..Judged::default()
            }),
            None => PointEvents::Kept(IdMap::new()),
        })
        .collect();
    let mut problems = Problems::default();
    let mut line_problems = Problems::default();
    let mut undeclared: std::collections::BTreeMap<String, (u64, u32)> = Default::default();
    for_each_line(r, file, &mut line_problems, |line, text| {
        if stopped {
            return;
        }
        let ev = match parse_event(text) {
            Ok(e) => e,
            Err(e) => {
                problems.push(format!("{file}:{line}: {e}"));
                return;
            }
        };
        let Some(&pi) = index.get(&*ev.point) else {
            s.events += 1;
            if undeclared.len() < 1024 || undeclared.contains_key(&*ev.point) {
                undeclared
                    .entry(ev.point.into_owned())
                    .or_insert((0, line))
                    .0 += 1;
            } else {
                undeclared
                    .entry("(other points)".into())
                    .or_insert((0, line))
                    .0 += 1;
            }
            return;
        };
        let rid = &*ev.request_id;
        // Where the event goes, and whether its id is new to the journal
        // (counted against the limit before anything is kept of it).
        let client = points[pi].1.and_then(|c| c.ids.entry_of(rid));
        let new = match (&kept[pi], client) {
            (PointEvents::Kept(map), _) => !map.contains_key(rid),
            (PointEvents::Judged(j), Some((k, _))) => j.slots[k].flags & SEEN == 0,
            (PointEvents::Judged(j), None) => !j.orphans.contains_key(rid),
        };
        if new {
            if requests == max_requests {
                problems.push(limit.stop(file, line));
                stopped = true;
                return;
            }
            requests += 1;
        }
        s.events += 1;
        let event = (line, ev.at, Kind::of(&ev.event), ev.status);
        match (&mut kept[pi], client) {
            (PointEvents::Kept(map), _) => {
                if let Some(t) = map.get_or_insert_with(rid, Terminals::default) {
                    t.take(event.0, event.1, event.2, event.3);
                }
            }
            (PointEvents::Judged(j), Some((k, c))) => j.take(k, c, event, tol),
            (PointEvents::Judged(j), None) => {
                if let Some(t) = j.orphans.get_or_insert_with(rid, Terminals::default) {
                    t.take(event.0, event.1, event.2, event.3);
                }
            }
        }
    })?;
    for p in line_problems.quoted.iter() {
        problems.push(p.clone());
    }
    problems.count += line_problems.count - line_problems.quoted.len() as u64;
    s.problems = problems;
    s.undeclared = undeclared;
    s.points = points
        .iter()
        .map(|(name, _)| name.to_string())
        .zip(kept)
        .collect();
    Ok(s)
}
