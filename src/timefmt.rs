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
    let expected = || format!("{s:?} is not an RFC 3339 UTC time like \"2026-09-23T10:00:00Z\"");
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[b.len() - 1] != b'Z'
    {
        return Err(expected());
    }
    let num = |r: std::ops::Range<usize>| -> Result<u32, String> {
        let t = &s[r];
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().map_err(|_| expected())
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
    let frac = &s[19..s.len() - 1];
    if !frac.is_empty()
        && (!frac.starts_with('.')
            || frac.len() < 2
            || !frac[1..].bytes().all(|c| c.is_ascii_digit()))
    {
        return Err(expected());
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
    Ok(())
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
        ] {
            assert!(check_rfc3339_utc(bad).is_err(), "{bad}");
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
