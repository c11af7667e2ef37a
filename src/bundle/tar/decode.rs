//! Tar header decoding (the reader's half of [`super`]): one 512-byte header block, the records of a PAX
//! extended header (`x`) and a GNU long name (`L`), decoded strictly (spec
//! section 5).
//!
//! Mainstream readers (GNU tar, Python's `tarfile`, Go's `archive/tar`, the
//! Rust `tar` crate) disagree on many corners of the format: an empty PAX
//! value, a repeated key, a GNU long name together with a PAX path, leading
//! spaces or base-256 in a numeric field, bytes in the ustar prefix area of
//! a GNU header. Each such disagreement lets an archive list one set of files
//! here and another set elsewhere, so a verified bundle could extract to
//! different content. This module accepts only the constructs every one of
//! those readers reads the same way (what GNU tar, Python and proofpack write
//! for ordinary files) and returns the reason for anything else; the caller
//! turns it into a failed `bundle.tar` check.
//!
//! Nothing here allocates more than the 512-byte block or the record bytes
//! the caller already holds (bounded by `--max-pax-record-bytes`).

use std::collections::HashSet;
use std::ops::Range;

use super::layout::{
    checksums, field, typeflag, BLOCK, GNU_MAGIC, GNU_VERSION, USTAR_MAGIC, USTAR_VERSION,
};

/// A decoded, acceptable entry or extension header.
pub(crate) struct Header {
    /// The typeflag byte.
    pub typeflag: u8,
    /// The size field.
    pub size: u64,
    /// The name field, joined with the ustar prefix when there is one.
    pub name: Vec<u8>,
}

/// The numeric fields every reader parses, with whether an all-NUL field is
/// accepted. GNU tar and Python write `devmajor`/`devminor` as NULs for
/// anything but devices; every other field is always written with digits
/// (the tar crate refuses an empty size or checksum outright).
const NUMERIC_FIELDS: [(&str, Range<usize>, bool); 7] = [
    ("mode", field::MODE, false),
    ("uid", field::UID, false),
    ("gid", field::GID, false),
    ("size", field::SIZE, false),
    ("mtime", field::MTIME, false),
    ("devmajor", field::DEVMAJOR, true),
    ("devminor", field::DEVMINOR, true),
];

/// Largest uid or gid (GNU tar refuses larger ones, in the header or PAX).
const MAX_ID: u64 = u32::MAX as u64;

/// Largest value accepted in a base-256 field (Go refuses 2^63 and more).
const MAX_BASE256: u64 = i64::MAX as u64;

/// Decodes one numeric header field.
///
/// Accepted: one or more octal digits followed by at least one NUL or space
/// and nothing else (what every writer produces, for example `0000644\0` or
/// `000644 \0`); an all-NUL field where `may_be_empty`; and, only when
/// `base256`, the GNU base-256 form with a first byte of exactly 0x80 and a
/// value below 2^63. Refused, because readers parse them differently:
/// leading spaces or NULs (GNU tar skips one leading NUL, Python stops at
/// it), no terminator, anything after the number, base-256 under ustar magic
/// or negative, and all-space fields (GNU tar errors, Python reads 0).
pub(crate) fn parse_numeric(
    field: &[u8],
    base256: bool,
    may_be_empty: bool,
) -> Result<u64, &'static str> {
    let Some(&first) = field.first() else {
        return Err("empty field");
    };
    if first & 0x80 != 0 {
        if !base256 {
            return Err("base-256 value where octal is required (only GNU-format headers may use base-256, and never in the checksum)");
        }
        if first != 0x80 {
            return Err("negative or malformed base-256 value");
        }
        let mut v: u64 = 0;
        for &b in &field[1..] {
            if v > MAX_BASE256 >> 8 {
                return Err("base-256 value of 2^63 or more");
            }
            v = (v << 8) | b as u64;
        }
        if v > MAX_BASE256 {
            return Err("base-256 value of 2^63 or more");
        }
        return Ok(v);
    }
    if field.iter().all(|b| *b == 0) {
        return if may_be_empty {
            Ok(0)
        } else {
            Err("empty (all NUL bytes)")
        };
    }
    match first {
        b' ' if field.iter().all(|b| *b == b' ' || *b == 0) => {
            return Err("blank (spaces only; GNU tar refuses it, Python reads 0)")
        }
        b' ' => return Err("leading spaces before the number"),
        0 => return Err("a NUL before the number (GNU tar skips it, Python stops there)"),
        b'0'..=b'7' => {}
        _ => return Err("not an octal number"),
    }
    let digits = field
        .iter()
        .take_while(|b| (b'0'..=b'7').contains(*b))
        .count();
    if digits == field.len() {
        return Err("no NUL or space terminator after the digits");
    }
    if field[digits..].iter().any(|b| *b != 0 && *b != b' ') {
        return Err("characters after the number");
    }
    let mut v: u64 = 0;
    for &b in &field[..digits] {
        // At most 11 digits (a 12-byte field): no overflow.
        v = v * 8 + (b - b'0') as u64;
    }
    Ok(v)
}

/// The field up to its first NUL.
pub(crate) fn cstr(field: &[u8]) -> &[u8] {
    match field.iter().position(|b| *b == 0) {
        Some(i) => &field[..i],
        None => field,
    }
}

/// A short, printable rendering of untrusted bytes for messages: lossy
/// UTF-8, control characters escaped, at most `max` bytes of the input
/// followed by "… (N bytes)" when longer.
pub(crate) fn shown(bytes: &[u8], max: usize) -> String {
    let mut cut = bytes.len().min(max);
    let s = loop {
        // Do not split a UTF-8 sequence at the cut.
        match std::str::from_utf8(&bytes[..cut]) {
            Ok(s) => break s.to_string(),
            Err(e) if e.error_len().is_none() && cut > 0 && cut < bytes.len() => {
                cut = e.valid_up_to()
            }
            Err(_) => break String::from_utf8_lossy(&bytes[..cut]).into_owned(),
        }
    };
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if cut < bytes.len() {
        out.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    out
}

/// Decodes a non-zero header block. `Err` holds the reason it is refused.
pub(crate) fn decode(h: &[u8; BLOCK]) -> Result<Header, String> {
    // Checksum: octal only (GNU tar and Go refuse base-256 here, Python
    // accepts it), and the unsigned sum only (the tar crate does not know
    // the historic signed sum).
    let want = parse_numeric(&h[field::CHKSUM], false, false)
        .map_err(|why| format!("header checksum field is not usable: {why}"))?;
    let (sum, signed) = checksums(h);
    if want != sum {
        return Err(if signed >= 0 && want == signed as u64 {
            "header checksum is the historic signed sum (only the unsigned sum is accepted; the Rust tar crate refuses the signed one)".to_string()
        } else {
            "header checksum mismatch (corrupt archive or not a tar stream)".to_string()
        });
    }
    let gnu = match (&h[field::MAGIC], &h[field::VERSION]) {
        (m, v) if m == USTAR_MAGIC && v == USTAR_VERSION => false,
        (m, v) if m == GNU_MAGIC && v == GNU_VERSION => true,
        (m, v) if m == USTAR_MAGIC => {
            return Err(format!(
                "ustar magic with version {} instead of \"00\" (the tar crate then reads it as an old header without prefix or extensions)",
                shown(v, 2)
            ))
        }
        _ => {
            return Err(
                "header is neither POSIX ustar nor GNU format (old v7 tar headers are not accepted)"
                    .into(),
            )
        }
    };
    let mut size = 0;
    for (field, range, may_be_empty) in NUMERIC_FIELDS {
        let v = parse_numeric(&h[range], gnu, may_be_empty)
            .map_err(|why| format!("numeric field {field} is not usable: {why}"))?;
        if field == "size" {
            size = v;
        }
        if matches!(field, "uid" | "gid") && v > MAX_ID {
            return Err(format!(
                "numeric field {field} is not usable: {v} is above {MAX_ID} (GNU tar refuses it)"
            ));
        }
    }
    if gnu {
        if h[field::PREFIX.start..].iter().any(|b| *b != 0) {
            return Err("GNU-format header with non-zero bytes in 345..512, the ustar prefix area (Python prepends them to the name, Go reads times there)".into());
        }
    } else if h[field::USTAR_PAD..].iter().any(|b| *b != 0) {
        return Err("ustar header with non-zero bytes in 500..512 (Go then reads it as a star header with a shorter prefix)".into());
    }
    let flag = h[field::TYPEFLAG];
    let described = match flag {
        typeflag::DIRECTORY => Some("directory"),
        typeflag::PAX => Some("PAX"),
        typeflag::GNU_LONG_NAME => Some("GNU long-name"),
        typeflag::REGULAR | typeflag::REGULAR_OLD => Some("regular-file"),
        _ => None,
    };
    if let Some(kind) = described {
        if h[field::LINKNAME].iter().any(|b| *b != 0) {
            return Err(format!("a {kind} header with a non-empty linkname field"));
        }
    }
    let name = cstr(&h[field::NAME]);
    let prefix = if gnu {
        &[][..]
    } else {
        cstr(&h[field::PREFIX])
    };
    let name = if prefix.is_empty() {
        name.to_vec()
    } else {
        let mut v = Vec::with_capacity(prefix.len() + 1 + name.len());
        v.extend_from_slice(prefix);
        v.push(b'/');
        v.extend_from_slice(name);
        v
    };
    Ok(Header {
        typeflag: flag,
        size,
        name,
    })
}

/// What a PAX extended header says about the next entry.
#[derive(Default, Debug)]
pub(crate) struct PaxInfo {
    /// `path`.
    pub path: Option<Vec<u8>>,
    /// `size`.
    pub size: Option<u64>,
    /// Some `GNU.sparse.*` record was present (a sparse file).
    pub sparse: bool,
}

/// Vendor prefixes of extended-attribute keys, ignored by every reader but
/// the one that wrote them.
const XATTR_PREFIXES: [&[u8]; 2] = [b"SCHILY.xattr.", b"LIBARCHIVE.xattr."];

fn all_digits(v: &[u8], max: usize) -> bool {
    !v.is_empty() && v.len() <= max && v.iter().all(u8::is_ascii_digit)
}

/// `-?[0-9]+(\.[0-9]+)?` with at most 18 integer digits: what Go accepts
/// for a PAX time (Python's `float` also takes `1e3`, `inf`, `.5`).
fn pax_time_ok(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    match v.iter().position(|b| *b == b'.') {
        None => all_digits(v, 18),
        Some(i) => all_digits(&v[..i], 18) && all_digits(&v[i + 1..], 64),
    }
}

/// Parses the data of a PAX extended header.
///
/// Each record must be `"<len> <key>=<value>\n"` with a correct decimal
/// length, and the records must fill the data exactly. The rules: only the
/// keys `path`, `size`, `mtime`, `atime`, `ctime`, `uid`, `gid`, `uname`,
/// `gname`, `SCHILY.xattr.*`, `LIBARCHIVE.xattr.*` (and `GNU.sparse.*`,
/// which marks a sparse file, rejected by the caller); no key twice (the tar
/// crate takes the first, the others the last); no empty value (Python reads
/// an empty `size` as 0, Go keeps the ustar value, GNU tar calls it
/// malformed); no newline in a value (the tar crate splits records at
/// newlines) and no NUL except in extended attributes (Go refuses it);
/// `size`, `uid`, `gid` decimal digits only; times decimal with an optional
/// sign and fraction; and no `hdrcharset=` anywhere (Python finds it by a
/// search even inside another record's value).
pub(crate) fn parse_pax(data: &[u8]) -> Result<PaxInfo, String> {
    let mut p = PaxInfo::default();
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut rest = data;
    while !rest.is_empty() {
        let sp = rest
            .iter()
            .take(21)
            .position(|b| *b == b' ')
            .ok_or("PAX record without a length")?;
        let len_s = &rest[..sp];
        if !all_digits(len_s, 19) {
            return Err("PAX record length is not a decimal number".into());
        }
        let len: usize = std::str::from_utf8(len_s)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or("bad PAX record length")?;
        if len <= sp + 1 || len > rest.len() {
            return Err(format!(
                "PAX record length {len} does not fit the header data"
            ));
        }
        let rec = &rest[sp + 1..len];
        rest = &rest[len..];
        let Some(kv) = rec.strip_suffix(b"\n") else {
            return Err("PAX record does not end with a newline".into());
        };
        let eq = kv
            .iter()
            .position(|b| *b == b'=')
            .ok_or("PAX record without '='")?;
        let (key, value) = (&kv[..eq], &kv[eq + 1..]);
        let k = shown(key, 64);
        if key.starts_with(b"GNU.sparse.") {
            p.sparse = true;
            continue;
        }
        if !seen.insert(key) {
            return Err(format!(
                "PAX key '{k}' repeated (the tar crate takes the first value, GNU tar and Python the last)"
            ));
        }
        if value.is_empty() {
            return Err(format!(
                "empty PAX value for '{k}' (Python reads it as empty or 0, Go keeps the ustar field, GNU tar calls it malformed)"
            ));
        }
        if value.contains(&b'\n') {
            return Err(format!(
                "PAX value for '{k}' contains a newline (the tar crate splits records at newlines)"
            ));
        }
        let xattr = XATTR_PREFIXES
            .iter()
            .any(|pre| key.len() > pre.len() && key.starts_with(pre));
        if !xattr && value.contains(&0) {
            return Err(format!(
                "PAX value for '{k}' contains a NUL byte (Go refuses it, others cut or keep it)"
            ));
        }
        match key {
            b"path" => p.path = Some(value.to_vec()),
            b"size" => {
                if !all_digits(value, 18) {
                    return Err("PAX size is not a decimal number of at most 18 digits".into());
                }
                p.size = Some(
                    std::str::from_utf8(value)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .ok_or("PAX size is not a number")?,
                );
            }
            b"uid" | b"gid" => {
                let id = std::str::from_utf8(value)
                    .ok()
                    .filter(|_| all_digits(value, 10))
                    .and_then(|s| s.parse::<u64>().ok())
                    .filter(|id| *id <= MAX_ID);
                if id.is_none() {
                    return Err(format!(
                        "PAX {k} is not a decimal number up to {MAX_ID} (GNU tar refuses larger ids)"
                    ));
                }
            }
            b"mtime" | b"atime" | b"ctime" => {
                if !pax_time_ok(value) {
                    return Err(format!(
                        "PAX {k} is not a decimal time (seconds with an optional fraction; Go refuses other forms, Python reads them as floats)"
                    ));
                }
            }
            b"uname" | b"gname" => {}
            _ if xattr => {
                if key.contains(&0) {
                    return Err("PAX extended-attribute key contains a NUL byte".into());
                }
            }
            b"linkpath" => {
                return Err(
                    "PAX key 'linkpath' (links are not allowed in a bundle; readers differ on which entry it applies to)"
                        .into(),
                )
            }
            b"hdrcharset" => {
                return Err(
                    "PAX key 'hdrcharset' (Python then decodes names in the locale's encoding)"
                        .into(),
                )
            }
            _ => {
                return Err(format!(
                    "PAX key '{k}' is not accepted (proofpack accepts path, size, mtime, atime, ctime, uid, gid, uname, gname and SCHILY.xattr.* / LIBARCHIVE.xattr.*)"
                ))
            }
        }
    }
    if data.windows(11).any(|w| w == b"hdrcharset=") {
        return Err(
            "PAX data contains 'hdrcharset=' (Python applies it even inside another value)".into(),
        );
    }
    Ok(p)
}

/// Parses the data of a GNU long-name (`L`) record: the name followed by
/// exactly one NUL, as GNU tar and Python write it. A name with a NUL inside
/// (the tar crate keeps the bytes after it, the others cut there) or without
/// the final NUL (Python then reads on into the padding) is refused.
pub(crate) fn parse_long_name(data: &[u8]) -> Result<Vec<u8>, String> {
    match data.split_last() {
        None | Some((0, [])) => Err("GNU long name is empty".into()),
        Some((0, name)) if !name.contains(&0) => Ok(name.to_vec()),
        Some((0, _)) => Err("GNU long name contains a NUL byte before its end".into()),
        Some(_) => Err("GNU long name does not end with exactly one NUL byte".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_numeric(b"00000002322\0", false, false), Ok(1234));
        assert_eq!(parse_numeric(b"000644 \0", false, false), Ok(0o644));
        assert_eq!(parse_numeric(b"0000644 ", false, false), Ok(0o644));
        assert_eq!(parse_numeric(b"\0\0\0\0", false, true), Ok(0));
        for (bad, base256, empty) in [
            (&b"     2322 \0"[..], false, false),
            (b"\0\0\0", false, false),
            (b"        ", false, true),
            (b"0000009\0", false, false),
            (b"00000644", false, false),
            (b"\x000000644", false, false),
            (b"0000644\x001", false, false),
            (b"+000644\0", false, false),
        ] {
            assert!(
                parse_numeric(bad, base256, empty).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut b = [0u8; 12];
        b[0] = 0x80;
        b[11] = 5;
        b[10] = 1;
        assert_eq!(parse_numeric(&b, true, false), Ok(261));
        assert!(parse_numeric(&b, false, false).is_err());
        b[0] = 0xff;
        assert!(parse_numeric(&b, true, false).is_err());
        let mut big = [0u8; 12];
        big[0] = 0x80;
        big[4] = 0x80;
        assert!(parse_numeric(&big, true, false).is_err());
        big[4] = 0x7f;
        assert!(parse_numeric(&big, true, false).is_ok());
    }

    #[test]
    fn pax_records() {
        let p = parse_pax(b"13 path=abcd\n11 size=42\n30 mtime=1796116143.039807972\n").unwrap();
        assert_eq!(p.path.as_deref(), Some(&b"abcd"[..]));
        assert_eq!(p.size, Some(42));
        for bad in [
            // Malformed framing.
            &b"12 path=abcd\n"[..],
            b"x path=a\n",
            b"99 path=a\n",
            b"9 pathab\n",
            b"13 path=abcd\n\0\0",
            // Well framed, refused by the rules.
            b"11 size=4x\n",
            b"8 size=\n",
            b"8 path=\n",
            b"9 path=a\n9 path=b\n",
            b"14  path=abcd\n",
            b"13 comment=a\n",
            b"14 linkpath=a\n",
            b"19 hdrcharset=UTF8\n",
            b"13 mtime=1e3\n",
            b"9 uid=+1\n",
            b"13 path=a\0cd\n",
            b"13 uname=a\nb\n",
            b"43 SCHILY.xattr.user.x=1 hdrcharset=BINARY\n",
        ] {
            assert!(
                parse_pax(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        for good in [
            &b"27 SCHILY.xattr.user.a=x\0y\n"[..],
            b"14 mtime=-1.5\n",
            b"11 uid=501\n",
        ] {
            assert!(
                parse_pax(good).is_ok(),
                "{:?}",
                String::from_utf8_lossy(good)
            );
        }
        assert!(parse_pax(b"22 GNU.sparse.major=1\n").unwrap().sparse);
    }

    #[test]
    fn long_names() {
        assert_eq!(parse_long_name(b"run/a\0").unwrap(), b"run/a");
        for bad in [&b""[..], b"\0", b"run/a", b"run\0/a\0", b"run/a\0\0"] {
            assert!(parse_long_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn shown_truncates() {
        assert_eq!(shown(b"abc", 10), "abc");
        assert_eq!(shown(b"a\nb", 10), "a\\nb");
        assert_eq!(shown(&[b'x'; 300], 4), "xxxx… (300 bytes)");
        // "ü" is two bytes: the cut does not split it.
        assert_eq!(shown("aü".as_bytes(), 2), "a… (3 bytes)");
    }
}
