//! Reading a whole file or stream with a size cap: the one way proofpack
//! reads anything it keeps in memory whole. Never allocates by a declared
//! length: at most `cap + 1` bytes are read, and one byte past the cap says
//! the input is too large.

use std::io::{self, Read};

/// Reads `r` to its end if it holds at most `cap` bytes; `Ok(None)` if it
/// holds more (reading stops one byte past the cap).
pub fn read_to_cap(r: impl Read, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    Ok(if buf.len() as u64 > cap {
        None
    } else {
        Some(buf)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_is_whole_one_past_is_too_large() {
        assert_eq!(read_to_cap(&b"abc"[..], 3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_to_cap(&b"abcd"[..], 3).unwrap(), None);
        assert_eq!(read_to_cap(&b""[..], 0).unwrap(), Some(Vec::new()));
        assert_eq!(
            read_to_cap(&b"abc"[..], u64::MAX).unwrap(),
            Some(b"abc".to_vec())
        );
    }
}
