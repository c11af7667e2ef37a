//! The tar format, one owner for both directions (spec section 5): the
//! header block's field layout, magics, typeflags and checksum, shared by the
//! writer ([`encode`]: the deterministic ustar + PAX headers `seal` writes)
//! and the strict reader ([`decode`]: the subset of tar every mainstream
//! reader reads the same way, spec section 5.1).
//!
//! Keeping the layout in one place is what makes "proofpack reads what it
//! writes" a property of the code rather than of two lists of offsets kept
//! in step by hand.

mod decode;
mod encode;
mod layout;

pub(crate) use decode::{cstr, decode, parse_long_name, parse_pax, shown, Header, PaxInfo};
pub(crate) use encode::{entry_tar_bytes, pad, pax_records, write_file_header, END_OF_ARCHIVE};
pub(crate) use layout::{field, typeflag, BLOCK};

#[cfg(test)]
mod tests {
    use super::*;

    /// What the writer encodes, the reader decodes to the same values.
    #[test]
    fn encode_then_decode() {
        for (path, size) in [
            ("run/MANIFEST", 0u64),
            ("run/a.json", 1234),
            ("run/big", encode::MAX_USTAR_SIZE + 1),
            (&*format!("run/{}", "d".repeat(120)), 7),
            ("run/ünï.json", 3),
        ] {
            let mut out = Vec::new();
            write_file_header(&mut out, path, size, 0o1234).unwrap();
            let (pax, h) = match pax_records(path, size) {
                Some(recs) => {
                    let x: [u8; BLOCK] = out[..BLOCK].try_into().unwrap();
                    let x = decode(&x).unwrap();
                    assert_eq!(x.typeflag, typeflag::PAX);
                    assert_eq!(x.size, recs.len() as u64);
                    let data = &out[BLOCK..BLOCK + recs.len()];
                    let start = BLOCK + (recs.len()).div_ceil(BLOCK) * BLOCK;
                    (Some(parse_pax(data).unwrap()), &out[start..])
                }
                None => (None, &out[..]),
            };
            assert_eq!(h.len(), BLOCK, "{path}");
            let hd = decode(h.try_into().unwrap()).unwrap();
            assert_eq!(hd.typeflag, typeflag::REGULAR);
            let name = pax.as_ref().and_then(|p| p.path.clone()).unwrap_or(hd.name);
            assert_eq!(name, path.as_bytes());
            let got = pax.as_ref().and_then(|p| p.size).unwrap_or(hd.size);
            assert_eq!(got, size);
            let written = out.len() as u64 + size.div_ceil(BLOCK as u64) * BLOCK as u64;
            assert_eq!(entry_tar_bytes(path, size), written, "{path}");
        }
    }
}
