//! RFC 3339 UTC timestamps, the one time format proofpack writes and reads
//! (seal and engine predicates, the catalog). Kept in one place, without a
//! date crate, because every writer must produce the same bytes for the same
//! second: seals are byte-reproducible.

/// Seconds since the Unix epoch (negative before it) as RFC 3339 UTC with
/// whole seconds, e.g. `2026-09-23T10:00:00Z`.
pub fn rfc3339_utc_signed(secs: i64) -> String {
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
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
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(expected()),
    };
    if d == 0 || d > days || h > 23 || mi > 59 || sec > 60 {
        return Err(expected());
    }
    Ok((days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec) as f64 + fraction)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// days_from_civil).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
}
