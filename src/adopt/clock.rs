//! Wall-clock anchoring of a result file's monotonic times.
//!
//! vLLM's `start_times` are `time.perf_counter()` readings: seconds on a
//! monotonic clock with an arbitrary origin. The only wall-clock time in
//! the file is its `date`, which `vllm bench serve` writes with
//! `datetime.now().strftime("%Y%m%d-%H%M%S")` after the benchmark has
//! returned (vllm-project/vllm `vllm/benchmarks/serve.py`, `main`): local
//! time, truncated to the second, no zone. The anchor maps the end of the
//! last request to that second, so every derived time has one-second
//! precision (and the offset from UTC is whatever the person importing
//! states; proofpack reads the date as UTC unless told otherwise).

/// The precision of the anchor, seconds (the `date`'s resolution).
pub const ANCHOR_PRECISION_S: u64 = 1;

/// Reads a result file's `date` (`20260625-153306`, or `2026-06-25
/// 15:33:06` as some forks write it) at the UTC offset `offset`
/// (`+HH:MM`/`-HH:MM`): unix seconds.
pub fn date_unix(date: &str, offset: &str) -> Result<i64, String> {
    let b = date.as_bytes();
    let compact = b.len() == 15 && b[8] == b'-';
    let spaced = b.len() == 19 && b[4] == b'-' && b[7] == b'-' && b[10] == b' ';
    let rfc = if compact && date.is_ascii() {
        format!(
            "{}-{}-{}T{}:{}:{}Z",
            &date[0..4],
            &date[4..6],
            &date[6..8],
            &date[9..11],
            &date[11..13],
            &date[13..15]
        )
    } else if spaced && date.is_ascii() {
        format!("{}T{}Z", &date[0..10], &date[11..19])
    } else {
        return Err(format!(
            "date {date:?} is not the client's \"%Y%m%d-%H%M%S\" (or \"%Y-%m-%d %H:%M:%S\")"
        ));
    };
    let secs = crate::timefmt::parse_rfc3339_utc(&rfc)
        .map_err(|_| format!("date {date:?} is not a valid date and time"))?;
    Ok(secs as i64 - offset_seconds(offset)?)
}

/// The seconds east of UTC of `+HH:MM` / `-HH:MM` (at most 14 hours).
pub fn offset_seconds(offset: &str) -> Result<i64, String> {
    let b = offset.as_bytes();
    let bad = || format!("UTC offset {offset:?} is not +HH:MM or -HH:MM");
    if b.len() != 6 || b[3] != b':' || !(b[0] == b'+' || b[0] == b'-') {
        return Err(bad());
    }
    let digits = |s: &[u8]| -> Result<i64, String> {
        if s.iter().all(u8::is_ascii_digit) {
            Ok(s.iter().fold(0, |v, d| v * 10 + i64::from(d - b'0')))
        } else {
            Err(bad())
        }
    };
    let (h, m) = (digits(&b[1..3])?, digits(&b[4..6])?);
    if h > 14 || m > 59 || (h == 14 && m > 0) {
        return Err(bad());
    }
    let s = h * 3600 + m * 60;
    Ok(if b[0] == b'-' { -s } else { s })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_offsets() {
        assert_eq!(date_unix("19700101-000001", "+00:00"), Ok(1));
        assert_eq!(date_unix("1970-01-01 01:00:00", "+01:00"), Ok(0));
        assert_eq!(date_unix("19700101-000000", "-00:30"), Ok(1800));
        assert_eq!(date_unix("20260625-153306", "+00:00"), Ok(1_782_401_586));
        for bad in [
            "2026-06-25T15:33:06Z",
            "20261325-000000",
            "2026062-1533066",
            "",
            "20260625-15330६",
        ] {
            assert!(date_unix(bad, "+00:00").is_err(), "{bad}");
        }
        for bad in ["0", "+8", "+08:0", "08:00", "+15:00", "+14:30", "+08:60"] {
            assert!(offset_seconds(bad).is_err(), "{bad}");
        }
    }
}
