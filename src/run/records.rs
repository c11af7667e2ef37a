//! Streaming readers for client records (JSON Lines); router journals are
//! read by [`crate::run::journal`] with the same line rules.
//!
//! Records are read one line at a time with a per-line cap, so memory is
//! bounded by one point's id map and metric vectors however large the run.
//! A malformed line is evidence that does not hold: it is recorded with its
//! file and line number and reading goes on, so that one report lists every
//! problem instead of the first.

use std::io::{self, BufRead, BufReader, Read};

use crate::run::idmap::IdMap;
use crate::run::metrics::{MetricsAccumulator, PointMetrics};
use crate::run::qualification::{ClientRecord, Status};

/// The longest record line proofpack reads (bytes, newline excluded).
pub const MAX_LINE: usize = 1 << 20;
/// The most lines proofpack reads of a records file or journal: what is
/// kept of a request names its lines as 32-bit numbers.
/// An honest journal of four million requests has some sixteen million.
pub const MAX_LINES: u64 = u32::MAX as u64;
/// How many problems of one kind a check detail quotes before summarising.
pub const MAX_QUOTED: usize = 10;

/// Valid records one client-records file may hold: what the verifier
/// keeps per request (id, status, times, the metric and plot values, about
/// 200 bytes) stays under about 0.5 GiB per file. Two million requests in
/// one point is 55 hours at 10 requests/s; past the limit reading stops and
/// the file is reported with the limit, never partly checked as a pass.
pub const MAX_CLIENT_RECORDS: u64 = 2_000_000;

/// The requests a run may declare over all its points
/// (measured and warmup). A run declaring more is refused before any record
/// is read (exit 2), and no client-records file is read past what its
/// point declares (one record more shows that it holds more): the memory
/// of a verification is bounded by what the run declares, not by what its
/// files hold.
pub const MAX_RUN_REQUESTS: u64 = 8_000_000;

/// The records of a point's file that are read: its declared requests and
/// warmups, and one more to show that the file holds more than it
/// declares; never more than [`MAX_CLIENT_RECORDS`].
pub fn records_to_read(requests: u64, warmup: u64) -> u64 {
    requests
        .saturating_add(warmup)
        .saturating_add(1)
        .min(MAX_CLIENT_RECORDS)
}

/// Problems found while reading, quoted up to [`MAX_QUOTED`], all counted.
#[derive(Debug, Default, Clone)]
pub struct Problems {
    /// The first problems, each naming file and line.
    pub quoted: Vec<String>,
    /// How many there were in total.
    pub count: u64,
}

impl Problems {
    /// Records one problem.
    pub fn push(&mut self, p: String) {
        self.count += 1;
        if self.quoted.len() < MAX_QUOTED {
            self.quoted.push(p);
        }
    }
    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// One line for a check detail.
    pub fn summary(&self) -> String {
        let mut s = self.quoted.join("; ");
        if self.count as usize > self.quoted.len() {
            s.push_str(&format!(
                "; and {} more",
                self.count as usize - self.quoted.len()
            ));
        }
        s
    }
}

/// Calls `f(line_number, line)` for every line of `r` (ended by `\n` or
/// `\r\n`); a line longer than [`MAX_LINE`], a blank line, invalid UTF-8
/// or a line past [`MAX_LINES`] (where reading stops, so every number
/// handed to `f` fits a `u32`) becomes a problem. Returns
/// `Err` only on I/O errors.
pub fn for_each_line(
    r: &mut dyn Read,
    file: &str,
    problems: &mut Problems,
    f: impl FnMut(u32, &str),
) -> io::Result<()> {
    lines_up_to(r, file, problems, MAX_LINES as u32, f)
}

/// [`for_each_line`] with a line limit other than [`MAX_LINES`] (tests).
fn lines_up_to(
    r: &mut dyn Read,
    file: &str,
    problems: &mut Problems,
    max_lines: u32,
    mut f: impl FnMut(u32, &str),
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, r);
    let mut buf = Vec::with_capacity(1024);
    let mut line_no = 0u64;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        line_no += 1;
        if line_no > u64::from(max_lines) {
            problems.push(format!(
                "{file}:{line_no}: more than {max_lines} lines; proofpack reads at most that many, so reading of this file stopped"
            ));
            io::copy(&mut reader, &mut io::sink())?;
            return Ok(());
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if buf.len() > MAX_LINE {
            problems.push(format!(
                "{file}:{line_no}: line longer than {MAX_LINE} bytes; reading of this file stopped"
            ));
            // Drain so that a hashing reader still sees every byte.
            io::copy(&mut reader, &mut io::sink())?;
            return Ok(());
        }
        // JSON Lines allows "\r\n" line ends; a line that is blank
        // once its "\r" is dropped is still a blank line.
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.is_empty() {
            problems.push(format!("{file}:{line_no}: blank line"));
            continue;
        }
        match std::str::from_utf8(&buf) {
            // At most `max_lines` lines, so the number fits a u32.
            Ok(s) => f(line_no as u32, s),
            Err(_) => problems.push(format!("{file}:{line_no}: not valid UTF-8")),
        }
    }
}

/// What is kept of one client request for the checks: 40 bytes (a time
/// that may be null is `NaN` for null, which no record can hold; a token
/// count from `u32::MAX` up is kept whole apart, see
/// [`ClientSummary::tokens`]).
#[derive(Debug, Clone, Copy)]
pub struct ClientId {
    /// Send time.
    pub sent_at: f64,
    first_token_at: f64,
    finished_at: f64,
    input_tokens: u32,
    output_tokens: u32,
    /// Line of the record (below [`MAX_LINES`]).
    pub line: u32,
    /// Final status.
    pub status: Status,
    /// Marked warmup.
    pub warmup: bool,
}

/// A token count as kept: `u32::MAX` stands for that or more.
fn narrow(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl ClientId {
    /// First token time.
    pub fn first_token_at(&self) -> Option<f64> {
        (!self.first_token_at.is_nan()).then_some(self.first_token_at)
    }

    /// Completion time.
    pub fn finished_at(&self) -> Option<f64> {
        (!self.finished_at.is_nan()).then_some(self.finished_at)
    }

    /// The latest time the record states (send, first token, finish):
    /// where the request's part of its point's window ends.
    pub fn last_at(&self) -> f64 {
        [self.first_token_at(), self.finished_at()]
            .into_iter()
            .flatten()
            .fold(self.sent_at, f64::max)
    }
}

/// The smallest and largest of a count over records, with the line of each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    /// Smallest value and its line.
    pub min: Option<(u64, u32)>,
    /// Largest value and its line.
    pub max: Option<(u64, u32)>,
}

impl Range {
    /// Takes one value at `line` into account.
    pub fn add(&mut self, v: u64, line: u32) {
        if self.min.is_none_or(|(m, _)| v < m) {
            self.min = Some((v, line));
        }
        if self.max.is_none_or(|(m, _)| v > m) {
            self.max = Some((v, line));
        }
    }
}

/// A request's send time and where it is recorded.
#[derive(Debug, Clone)]
pub struct SendAt {
    /// Send time, unix seconds.
    pub at: f64,
    /// Line of the record.
    pub line: u32,
    /// Request id.
    pub id: String,
}

/// Everything kept of one point's client records file.
#[derive(Debug)]
pub struct ClientSummary {
    /// Records read (valid lines).
    pub records: u64,
    /// Records marked warmup.
    pub warmups: u64,
    /// Request id -> status and line (first occurrence), in file order.
    pub ids: IdMap<ClientId>,
    /// Request ids seen more than once, with both lines.
    pub duplicates: Problems,
    /// Malformed lines and records of another point.
    pub problems: Problems,
    /// Measured ok requests outside the SLO, with their TTFT and TPOT.
    pub breaches: Problems,
    /// Recomputed metrics (non-warmup requests).
    pub metrics: PointMetrics,
    /// The warmup request sent last.
    pub last_warmup: Option<SendAt>,
    /// The measured request sent first.
    pub first_measured: Option<SendAt>,
    /// Measured requests sent before the last warmup (all counted, the
    /// first few quoted).
    pub early_measured: Problems,
    /// Earliest send time over every record, warmups included.
    pub first_sent: Option<f64>,
    /// `input_tokens` over the measured records.
    pub input_tokens: Range,
    /// `output_tokens` over the measured ok records.
    pub ok_output_tokens: Range,
    /// The series kept for plots.
    pub series: crate::run::metrics::PointSeries,
    /// Token counts of `u32::MAX` or more, whole, by the request's place in
    /// `ids` (see [`ClientSummary::tokens`]).
    large_tokens: std::collections::HashMap<u32, (u64, u64)>,
}

impl ClientSummary {
    /// The input and output tokens of `c`, the `k`-th request of `ids`.
    pub fn tokens(&self, k: usize, c: &ClientId) -> (u64, u64) {
        match self.large_tokens.get(&(k as u32)) {
            Some(&both) => both,
            None => (u64::from(c.input_tokens), u64::from(c.output_tokens)),
        }
    }

    /// The requests in file order (the first record of each request id),
    /// with their input and output tokens.
    pub fn in_file_order(&self) -> impl Iterator<Item = (&str, &ClientId, (u64, u64))> {
        self.ids
            .iter()
            .enumerate()
            .map(|(k, (rid, c))| (rid, c, self.tokens(k, c)))
    }

    /// The measured requests as the timeline draws them, in file order:
    /// the first record of each request id (drawn from the
    /// records kept for the checks, so a request id recorded twice, which
    /// `unique_ids` fails, is drawn once).
    pub fn timeline_records(
        &self,
    ) -> impl Iterator<Item = crate::run::metrics::TimelineRecord> + '_ {
        self.ids.values().filter(|c| !c.warmup).map(|c| {
            (
                c.sent_at,
                c.first_token_at().map(|ft| ft - c.sent_at),
                c.status,
            )
        })
    }
}

/// Streams one point's client records.
pub fn read_client_records(
    r: &mut dyn Read,
    file: &str,
    point: &str,
    slo_ttft_s: f64,
    slo_tpot_s: f64,
) -> io::Result<ClientSummary> {
    read_client_records_limited(r, file, point, slo_ttft_s, slo_tpot_s, MAX_CLIENT_RECORDS)
}

/// [`read_client_records`] with a record limit other than
/// [`MAX_CLIENT_RECORDS`].
pub fn read_client_records_limited(
    r: &mut dyn Read,
    file: &str,
    point: &str,
    slo_ttft_s: f64,
    slo_tpot_s: f64,
    max_records: u64,
) -> io::Result<ClientSummary> {
    let slo = (slo_ttft_s, slo_tpot_s);
    read_records_ending(r, file, point, slo, max_records, None)
}

/// [`read_client_records_limited`] of records whose window ends no
/// earlier than `window_end` (derived records whose failed requests have
/// no end: the client's own end of the benchmark).
pub fn read_records_ending(
    r: &mut dyn Read,
    file: &str,
    point: &str,
    (slo_ttft_s, slo_tpot_s): (f64, f64),
    max_records: u64,
    window_end: Option<f64>,
) -> io::Result<ClientSummary> {
    let mut stopped = false;
    let mut problems = Problems::default();
    let mut duplicates = Problems::default();
    let mut breaches = Problems::default();
    let mut ids: IdMap<ClientId> = IdMap::new();
    let mut large_tokens = std::collections::HashMap::new();
    let mut acc = MetricsAccumulator::default();
    let (mut records, mut warmups) = (0u64, 0u64);
    let mut first_sent: Option<f64> = None;
    let mut last_warmup: Option<SendAt> = None;
    let mut first_measured: Option<SendAt> = None;
    let mut input_tokens = Range::default();
    let mut ok_output_tokens = Range::default();
    let mut parse_problems = Problems::default();
    for_each_line(r, file, &mut parse_problems, |line, text| {
        if stopped {
            return;
        }
        // One parse: the reader refuses a repeated key itself.
        let rec: ClientRecord = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{file}:{line}: invalid client record: {e}"));
                return;
            }
        };
        if let Err(e) = rec.validate() {
            problems.push(format!("{file}:{line}: {e}"));
            return;
        }
        if rec.point != point {
            problems.push(format!(
                "{file}:{line}: request {:?} belongs to point {:?}, but this is point {point:?}'s file",
                rec.request_id, rec.point
            ));
            return;
        }
        if records == max_records {
            problems.push(if max_records < MAX_CLIENT_RECORDS {
                format!(
                    "{file}:{line}: more records than its point declares ({} with its warmups); reading of this file stopped one record past them (what a verification holds is bounded by what the run declares)",
                    max_records - 1
                )
            } else {
                format!(
                    "{file}:{line}: more than {max_records} records; proofpack reads at most that many per client-records file, so reading of this file stopped"
                )
            });
            stopped = true;
            return;
        }
        records += 1;
        first_sent = Some(first_sent.map_or(rec.sent_at, |f: f64| f.min(rec.sent_at)));
        let here = || SendAt {
            at: rec.sent_at,
            line,
            id: rec.request_id.clone(),
        };
        if rec.warmup {
            warmups += 1;
            if last_warmup
                .as_ref()
                .is_none_or(|w: &SendAt| rec.sent_at > w.at)
            {
                last_warmup = Some(here());
            }
        } else {
            if first_measured
                .as_ref()
                .is_none_or(|m: &SendAt| rec.sent_at < m.at)
            {
                first_measured = Some(here());
            }
            input_tokens.add(rec.input_tokens, line);
            if rec.status == Status::Ok {
                ok_output_tokens.add(rec.output_tokens, line);
            }
            let judged = acc.add(
                rec.status,
                rec.sent_at,
                rec.first_token_at,
                rec.finished_at,
                rec.output_tokens,
                slo_ttft_s,
                slo_tpot_s,
            );
            if let Some((ttft, tpot, false)) = judged {
                let tpot = tpot.map_or_else(
                    || "no TPOT".to_string(),
                    |t| format!("TPOT {:.1} ms", t * 1000.0),
                );
                breaches.push(format!(
                    "request {:?} ({file}:{line}): TTFT {ttft:.3} s, {tpot}",
                    rec.request_id
                ));
            }
        }
        let kept = ClientId {
            status: rec.status,
            line,
            sent_at: rec.sent_at,
            first_token_at: rec.first_token_at.unwrap_or(f64::NAN),
            finished_at: rec.finished_at.unwrap_or(f64::NAN),
            warmup: rec.warmup,
            input_tokens: narrow(rec.input_tokens),
            output_tokens: narrow(rec.output_tokens),
        };
        let k = ids.len() as u32;
        match ids.insert_first(&rec.request_id, kept) {
            Some(first) => duplicates.push(format!(
                "request id {:?} at {file}:{} and line {line}",
                rec.request_id, first.line
            )),
            None => {
                if kept.input_tokens == u32::MAX || kept.output_tokens == u32::MAX {
                    large_tokens.insert(k, (rec.input_tokens, rec.output_tokens));
                }
            }
        }
    })?;
    for p in parse_problems.quoted.iter() {
        problems.push(p.clone());
    }
    problems.count += parse_problems.count - parse_problems.quoted.len() as u64;
    if let Some(end) = window_end {
        acc.end_no_earlier_than(end);
    }
    let (metrics, series) = acc.finish_with_series();
    let early_measured = sent_before_warmup(&ids, last_warmup.as_ref(), file);
    Ok(ClientSummary {
        records,
        warmups,
        ids,
        duplicates,
        problems,
        breaches,
        metrics,
        series,
        last_warmup,
        first_measured,
        early_measured,
        first_sent,
        input_tokens,
        ok_output_tokens,
        large_tokens,
    })
}

/// The measured requests sent before the last warmup `w`, in send order.
fn sent_before_warmup(ids: &IdMap<ClientId>, w: Option<&SendAt>, file: &str) -> Problems {
    let mut early_measured = Problems::default();
    let Some(w) = w else {
        return early_measured;
    };
    let mut early: Vec<(&str, &ClientId)> = ids
        .iter()
        .filter(|(_, c)| !c.warmup && c.sent_at <= w.at)
        .collect();
    early.sort_by(|a, b| a.1.sent_at.total_cmp(&b.1.sent_at));
    for (id, c) in early {
        let (at, line) = (c.sent_at, c.line);
        early_measured.push(format!(
            "measured request {id:?} ({file}:{line}, sent_at {at:.6}) was sent before warmup {:?} ({file}:{}, sent_at {:.6})",
            w.id, w.line, w.at
        ));
    }
    early_measured
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> (Vec<(u32, String)>, Problems) {
        let mut out = Vec::new();
        let mut p = Problems::default();
        for_each_line(&mut &input[..], "f.jsonl", &mut p, |n, s| {
            out.push((n, s.to_string()))
        })
        .unwrap();
        (out, p)
    }

    #[test]
    fn line_rules() {
        let (l, p) = lines(b"a\nb");
        assert_eq!(l, vec![(1, "a".into()), (2, "b".into())]);
        assert!(p.is_empty());
        let (l, p) = lines(b"a\n\nb\r\n\xff\n\r\nc\rd\n");
        assert_eq!(
            l,
            vec![(1, "a".into()), (3, "b".into()), (6, "c\rd".into())]
        );
        assert_eq!(p.count, 3);
        assert!(p.quoted[0].contains("f.jsonl:2: blank line"));
        assert!(p.quoted[1].contains("f.jsonl:4: not valid UTF-8"));
        assert!(p.quoted[2].contains("f.jsonl:5: blank line"));
        let mut long = vec![b'x'; MAX_LINE + 10];
        long.extend_from_slice(b"\nok\n");
        let (l, p) = lines(&long);
        assert!(l.is_empty());
        assert!(p.quoted[0].contains("f.jsonl:1: line longer than"));
    }

    /// Past the line limit reading stops with a problem naming the line and
    /// the limit: no number beyond it is handed on (lines are 32-bit numbers).
    #[test]
    fn reading_stops_past_the_line_limit() {
        let mut seen = Vec::new();
        let mut p = Problems::default();
        lines_up_to(&mut &b"a\n\nb\nc\nd\n"[..], "f.jsonl", &mut p, 3, |n, s| {
            seen.push((n, s.to_string()))
        })
        .unwrap();
        assert_eq!(seen, vec![(1, "a".into()), (3, "b".into())]);
        assert_eq!(p.count, 2, "{:?}", p.quoted);
        assert!(
            p.quoted[1].contains("f.jsonl:4: more than 3 lines"),
            "{:?}",
            p.quoted
        );
    }

    #[test]
    fn client_records_are_summarised() {
        let rec = |id: &str, warm: bool, status: &str| {
            format!(
                "{{\"request_id\":\"{id}\",\"point\":\"p\",\"warmup\":{warm},\"status\":\"{status}\",\"sent_at\":10,\"first_token_at\":12,\"finished_at\":22,\"input_tokens\":5,\"output_tokens\":11}}\n"
            )
        };
        let text = [rec("w", true, "ok"), rec("a", false, "ok"), rec("a", false, "ok"), rec("b", false, "timeout")].concat()
            + "{\"request_id\":\"c\",\"point\":\"q\",\"warmup\":false,\"status\":\"ok\",\"sent_at\":1,\"first_token_at\":2,\"finished_at\":3,\"input_tokens\":1,\"output_tokens\":2}\n";
        let s = read_client_records(&mut text.as_bytes(), "c.jsonl", "p", 10.0, 0.3).unwrap();
        assert_eq!((s.records, s.warmups, s.ids.len()), (4, 1, 3));
        assert!(s.duplicates.quoted[0].contains("\"a\" at c.jsonl:2 and line 3"));
        assert!(
            s.problems.quoted[0].contains("c.jsonl:5")
                && s.problems.quoted[0].contains("point \"q\"")
        );
        assert_eq!(
            (s.metrics.measured, s.metrics.ok, s.metrics.timeouts),
            (3, 2, 1)
        );
        assert_eq!(s.metrics.ttft_s[0], Some(2.0));
        assert_eq!(s.metrics.tpot_ms[0], Some(1000.0));
        assert_eq!(s.metrics.within_limits, 0); // TPOT 1 s > 0.3 s
    }

    /// What is kept per request stays within its budget,
    /// and a token count past 32 bits is kept whole.
    #[test]
    fn a_request_is_kept_in_40_bytes_with_its_tokens_whole() {
        assert!(std::mem::size_of::<ClientId>() <= 40);
        let text = "{\"request_id\":\"a\",\"point\":\"p\",\"warmup\":false,\"status\":\"ok\",\"sent_at\":1,\"first_token_at\":2,\"finished_at\":3,\"input_tokens\":5000000000,\"output_tokens\":4294967295}\n\
            {\"request_id\":\"b\",\"point\":\"p\",\"warmup\":false,\"status\":\"error\",\"sent_at\":1,\"first_token_at\":null,\"finished_at\":null,\"input_tokens\":4294967294,\"output_tokens\":0}\n";
        let s = read_client_records(&mut text.as_bytes(), "c.jsonl", "p", 10.0, 0.3).unwrap();
        let all: Vec<(&str, u64, u64, Option<f64>)> = s
            .in_file_order()
            .map(|(id, c, (i, o))| (id, i, o, c.first_token_at()))
            .collect();
        assert_eq!(
            all,
            [
                ("a", 5_000_000_000, 4_294_967_295, Some(2.0)),
                ("b", 4_294_967_294, 0, None)
            ]
        );
    }

    #[test]
    fn reading_stops_at_the_record_and_request_limits() {
        let rec = |i: u32| {
            format!(
                "{{\"request_id\":\"r{i}\",\"point\":\"p\",\"warmup\":false,\"status\":\"ok\",\"sent_at\":10,\"first_token_at\":12,\"finished_at\":22,\"input_tokens\":5,\"output_tokens\":11}}\n"
            )
        };
        let text: String = (0..5).map(rec).collect();
        let s = read_client_records_limited(&mut text.as_bytes(), "c.jsonl", "p", 10.0, 0.3, 3)
            .unwrap();
        assert_eq!((s.records, s.ids.len()), (3, 3));
        assert_eq!(s.problems.count, 1, "{:?}", s.problems);
        assert!(s.problems.quoted[0]
            .starts_with("c.jsonl:4: more records than its point declares (2 with its warmups)"));
        let s = read_client_records_limited(&mut text.as_bytes(), "c.jsonl", "p", 10.0, 0.3, 5)
            .unwrap();
        assert!(s.problems.is_empty());
    }
}
