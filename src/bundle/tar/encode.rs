//! Writing tar headers: deterministic ustar blocks, and a PAX header only
//! where a ustar field cannot hold the value.
//!
//! Every header byte comes from a short list of inputs (path, size, the
//! fixed mtime) instead of from a tar library that copies file attributes:
//! mode 0644, owner 0, empty user and group names.

use std::io::{self, Write};

use super::layout::{checksums, field, typeflag, BLOCK, USTAR_MAGIC, USTAR_VERSION};

/// Largest size a ustar size field holds (11 octal digits).
pub(crate) const MAX_USTAR_SIZE: u64 = 0o777_7777_7777;
/// Name of PAX extended headers (as Python's tarfile writes it).
const PAX_HEADER_NAME: &[u8] = b"././@PaxHeader";
/// The two zero blocks that end an archive.
pub(crate) const END_OF_ARCHIVE: [u8; 2 * BLOCK] = [0u8; 2 * BLOCK];

/// Writes `value` as zero-padded octal filling `field` but its last byte (NUL).
fn put_octal(field: &mut [u8], value: u64) {
    let w = field.len() - 1;
    let s = format!("{value:0w$o}");
    debug_assert_eq!(s.len(), w);
    field[..w].copy_from_slice(s.as_bytes());
    field[w] = 0;
}

/// A ustar header block.
fn ustar_header(name: &[u8], size: u64, mtime: u64, flag: u8) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    let n = name.len().min(field::NAME.len());
    h[..n].copy_from_slice(&name[..n]);
    put_octal(&mut h[field::MODE], 0o644);
    put_octal(&mut h[field::UID], 0);
    put_octal(&mut h[field::GID], 0);
    put_octal(&mut h[field::SIZE], size);
    put_octal(&mut h[field::MTIME], mtime);
    h[field::TYPEFLAG] = flag;
    h[field::MAGIC].copy_from_slice(USTAR_MAGIC);
    h[field::VERSION].copy_from_slice(USTAR_VERSION);
    put_octal(&mut h[field::DEVMAJOR], 0);
    put_octal(&mut h[field::DEVMINOR], 0);
    let (sum, _) = checksums(&h);
    // Six octal digits, NUL, space (what GNU tar writes).
    let c = field::CHKSUM.start;
    h[c..c + 6].copy_from_slice(format!("{sum:06o}").as_bytes());
    h[c + 6] = 0;
    h[c + 7] = b' ';
    h
}

/// One PAX record `"<len> <key>=<value>\n"`, len counting itself.
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = key.len() + value.len() + 3; // ' ', '=', '\n'
    let mut len = body + 1;
    while len != body + len.to_string().len() {
        len = body + len.to_string().len();
    }
    let mut r = Vec::with_capacity(len);
    r.extend_from_slice(len.to_string().as_bytes());
    r.push(b' ');
    r.extend_from_slice(key.as_bytes());
    r.push(b'=');
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// Writes the zero padding after `size` data bytes.
pub(crate) fn pad<W: Write>(w: &mut W, size: u64) -> io::Result<()> {
    let rem = (size % BLOCK as u64) as usize;
    if rem != 0 {
        w.write_all(&[0u8; BLOCK][..BLOCK - rem])?;
    }
    Ok(())
}

/// True when the path needs a PAX `path` record (longer than the name
/// field, or not ASCII).
fn needs_pax_path(path: &str) -> bool {
    path.len() > field::NAME.len() || !path.is_ascii()
}

/// The PAX records written before a regular file's header: `path` when the
/// path is longer than 100 bytes or not ASCII, `size` when the size does not
/// fit in octal; `None` when neither.
pub(crate) fn pax_records(path: &str, size: u64) -> Option<Vec<u8>> {
    let long_path = needs_pax_path(path);
    let big = size > MAX_USTAR_SIZE;
    if !long_path && !big {
        return None;
    }
    let mut recs = Vec::new();
    if long_path {
        recs.extend(pax_record("path", path.as_bytes()));
    }
    if big {
        recs.extend(pax_record("size", size.to_string().as_bytes()));
    }
    Some(recs)
}

/// Bytes `n` data bytes take in the archive, padding included.
fn padded(n: u64) -> u64 {
    n.div_ceil(BLOCK as u64) * BLOCK as u64
}

/// Bytes one regular file takes in the archive: headers, data, padding.
pub(crate) fn entry_tar_bytes(path: &str, size: u64) -> u64 {
    let pax = pax_records(path, size).map_or(0, |r| BLOCK as u64 + padded(r.len() as u64));
    pax + BLOCK as u64 + padded(size)
}

/// Writes the header(s) of a regular file: a PAX header first when
/// [`pax_records`] says so.
pub(crate) fn write_file_header<W: Write>(
    w: &mut W,
    path: &str,
    size: u64,
    mtime: u64,
) -> io::Result<()> {
    let long_path = needs_pax_path(path);
    let big = size > MAX_USTAR_SIZE;
    if let Some(recs) = pax_records(path, size) {
        w.write_all(&ustar_header(
            PAX_HEADER_NAME,
            recs.len() as u64,
            mtime,
            typeflag::PAX,
        ))?;
        w.write_all(&recs)?;
        pad(w, recs.len() as u64)?;
    }
    let name: Vec<u8> = if long_path {
        // For readers that ignore PAX: an ASCII stand-in, never used by us.
        path.bytes()
            .map(|b| if b.is_ascii() { b } else { b'_' })
            .take(field::NAME.len())
            .collect()
    } else {
        path.as_bytes().to_vec()
    };
    w.write_all(&ustar_header(
        &name,
        if big { 0 } else { size },
        mtime,
        typeflag::REGULAR,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pax_record_lengths() {
        for n in [0usize, 1, 5, 90, 91, 92, 93, 989, 990, 995, 9990] {
            let v = vec![b'a'; n];
            let r = pax_record("path", &v);
            let (len, _) = std::str::from_utf8(&r).unwrap().split_once(' ').unwrap();
            assert_eq!(len.parse::<usize>().unwrap(), r.len(), "n={n}");
        }
    }

    #[test]
    fn header_checksum_and_fields() {
        let h = ustar_header(b"root/a", 1234, 0, typeflag::REGULAR);
        let mut c = h;
        c[148..156].fill(b' ');
        let sum: u64 = c.iter().map(|b| *b as u64).sum();
        let field = std::str::from_utf8(&h[148..154]).unwrap();
        assert_eq!(u64::from_str_radix(field, 8).unwrap(), sum);
        assert_eq!(&h[124..136], b"00000002322\0");
        assert_eq!(&h[100..108], b"0000644\0");
    }
}
