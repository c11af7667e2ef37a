//! RFC 3339 UTC timestamps, the one time format proofpack writes and reads
//! (seal and engine predicates, the catalog). The calendar is `jiff`'s;
//! what is kept here is the contract's strict form: UTC written `Z`, an
//! upper-case `T`, whole seconds when written, so that every writer
//! produces the same bytes for the same second (seals are
//! byte-reproducible) and a reader accepts nothing looser than it writes.

use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use jiff::Timestamp;

/// Seconds since the Unix epoch (negative before it) as RFC 3339 UTC with
/// whole seconds, e.g. `2026-09-23T10:00:00Z`. A second outside the years
/// -9999 to 9999 is written as the nearest one inside them.
pub fn rfc3339_utc_signed(secs: i64) -> String {
    let t = Timestamp::from_second(secs).unwrap_or(if secs < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Unix seconds as RFC 3339 UTC, whole seconds.
pub fn rfc3339_utc(unix_secs: u64) -> String {
    rfc3339_utc_signed(i64::try_from(unix_secs).unwrap_or(i64::MAX / 2))
}

/// A system time as RFC 3339 UTC, whole seconds (truncated toward the past).
pub fn rfc3339_system(t: std::time::SystemTime) -> String {
    let secs = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs_f64().ceil() as i64),
    };
    rfc3339_utc_signed(secs)
}

/// The current time as RFC 3339 UTC, whole seconds.
pub fn rfc3339_utc_now() -> String {
    rfc3339_system(std::time::SystemTime::now())
}

/// Checks `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (RFC 3339, UTC written as `Z`),
/// with a real calendar date and time.
pub fn check_rfc3339_utc(s: &str) -> Result<(), String> {
    parse_rfc3339_utc(s).map(|_| ())
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` into seconds since the Unix
/// epoch (the fraction kept; a leap second 60 counts as the next second).
///
/// The text is examined byte by byte and every byte must be the ASCII the
/// format allows, so any input (non-ASCII included) gets an error, never a
/// panic.
pub fn parse_rfc3339_utc(s: &str) -> Result<f64, String> {
    let expected = || format!("{s:?} is not an RFC 3339 UTC time like \"2026-09-23T10:00:00Z\"");
    let b = s.as_bytes();
    if b.len() < 20
        || b.len() > 64
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[b.len() - 1] != b'Z'
    {
        return Err(expected());
    }
    let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
        let t = &b[r];
        if t.iter().all(u8::is_ascii_digit) {
            Ok(t.iter().fold(0i64, |v, d| v * 10 + i64::from(d - b'0')))
        } else {
            Err(expected())
        }
    };
    let (y, mo, d, h, mi, sec) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let frac = &b[19..b.len() - 1];
    let mut fraction = 0.0;
    if !frac.is_empty() {
        if frac[0] != b'.' || frac.len() < 2 || !frac[1..].iter().all(u8::is_ascii_digit) {
            return Err(expected());
        }
        let digits = std::str::from_utf8(frac).map_err(|_| expected())?;
        fraction = format!("0{digits}")
            .parse::<f64>()
            .map_err(|_| expected())?;
    }
    // A leap second (60) counts as the next second.
    let leap = sec == 60;
    let small = |v: i64| i8::try_from(v).map_err(|_| expected());
    let dt = DateTime::new(
        i16::try_from(y).map_err(|_| expected())?,
        small(mo)?,
        small(d)?,
        small(h)?,
        small(mi)?,
        small(if leap { 59 } else { sec })?,
        0,
    )
    .map_err(|_| expected())?;
    let t = TimeZone::UTC.to_timestamp(dt).map_err(|_| expected())?;
    Ok((t.as_second() + i64::from(leap)) as f64 + fraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_790_000_000), "2026-09-21T14:13:20Z");
        for ok in [
            "2026-09-23T10:00:00Z",
            "2024-02-29T23:59:60Z",
            "2026-01-01T00:00:00.123456Z",
        ] {
            assert!(check_rfc3339_utc(ok).is_ok(), "{ok}");
        }
        for bad in [
            "2026-09-23 10:00:00Z",
            "2026-09-23T10:00:00",
            "2026-09-23T10:00:00+00:00",
            "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-09-23T24:00:00Z",
            "2026-09-23T10:00:00.Z",
            "2026-09-23t10:00:00z",
            "2026-09-23T10:00:0\u{e9}0Z",
            "\u{e9}\u{e9}\u{e9}\u{e9}-09-23T10:00:00Z",
            "2026-09-23T10:00:00.\u{e9}Z",
        ] {
            assert!(check_rfc3339_utc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_to_unix_seconds() {
        assert_eq!(parse_rfc3339_utc("1970-01-01T00:00:00Z"), Ok(0.0));
        assert_eq!(
            parse_rfc3339_utc("2026-09-23T07:40:00Z"),
            Ok(1_790_149_200.0)
        );
        assert_eq!(
            parse_rfc3339_utc("2000-02-29T00:00:00.5Z"),
            Ok(951_782_400.5)
        );
        for secs in [0u64, 951_782_400, 1_790_000_000, 4_102_444_800] {
            assert_eq!(parse_rfc3339_utc(&rfc3339_utc(secs)), Ok(secs as f64));
        }
    }

    #[test]
    fn signed_and_system_agree() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(rfc3339_utc_signed(-1), "1969-12-31T23:59:59Z");
        assert_eq!(
            rfc3339_system(UNIX_EPOCH + Duration::from_secs(1_700_000_000)),
            rfc3339_utc(1_700_000_000)
        );
        assert_eq!(rfc3339_utc(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    proptest::proptest! {
        /// Every second of years 1 to 9999 is written as jiff prints it and
        /// read back to itself; with a leap second or a fraction, jiff's
        /// instant is read too.
        #[test]
        fn writes_and_reads_as_jiff_does(secs in -62_135_596_800i64..253_402_300_799) {
            let w = rfc3339_utc_signed(secs);
            let jiffs = jiff::Timestamp::from_second(secs).unwrap().to_string();
            proptest::prop_assert_eq!(&w, &jiffs);
            proptest::prop_assert_eq!(parse_rfc3339_utc(&w), Ok(secs as f64));
            let with_fraction = format!("{}.25Z", &w[..w.len() - 1]);
            proptest::prop_assert_eq!(parse_rfc3339_utc(&with_fraction), Ok(secs as f64 + 0.25));
        }
    }
}
