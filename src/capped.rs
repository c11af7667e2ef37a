//! Reading a whole file or stream with a size cap: the one way proofpack
//! reads anything it keeps in memory whole. Never allocates by a declared
//! length: at most `cap + 1` bytes are read, and one byte past the cap says
//! the input is too large.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The limit a too-large file read names in its message: the manifest
/// cap, whatever the read's own `cap` (`manifest` checks that the two
/// stay equal).
pub(crate) const NAMED_LIMIT: u64 = 1 << 30;

/// Why [`read_capped`] read no bytes.
#[derive(Debug, thiserror::Error)]
pub enum CappedError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file holds more than the cap.
    #[error("{}: manifest is larger than the {NAMED_LIMIT}-byte limit", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap it is over, in bytes.
        cap: u64,
    },
}

/// Reads at most `cap + 1` bytes of `r`: all of it when it holds at most
/// `cap`, else its first `cap + 1` bytes, by which the caller tells it is
/// too large (for readers that refuse an oversized input later, where they
/// judge it).
pub fn read_past_cap(r: impl Read, cap: u64) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads `r` to its end if it holds at most `cap` bytes; `Ok(None)` if it
/// holds more (reading stops one byte past the cap).
pub fn read_to_cap(r: impl Read, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let buf = read_past_cap(r, cap)?;
    Ok(if buf.len() as u64 > cap {
        None
    } else {
        Some(buf)
    })
}

/// Reads the file at `path` whole if it holds at most `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, CappedError> {
    let io_err = |source| CappedError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = fs::File::open(path).map_err(io_err)?;
    read_to_cap(f, cap)
        .map_err(io_err)?
        .ok_or_else(|| CappedError::TooLarge {
            path: path.to_path_buf(),
            cap,
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

    #[test]
    fn past_the_cap_keeps_one_byte_more() {
        assert_eq!(read_past_cap(&b"abc"[..], 3).unwrap(), b"abc".to_vec());
        assert_eq!(read_past_cap(&b"abcdef"[..], 3).unwrap(), b"abcd".to_vec());
        assert_eq!(
            read_past_cap(&b"abc"[..], u64::MAX).unwrap(),
            b"abc".to_vec()
        );
    }
}
