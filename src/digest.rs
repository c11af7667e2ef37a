//! SHA-256 digests, the one hash proofpack uses (spec section 1).
//!
//! A [`Sha256Digest`] is 32 bytes. Writers always emit 64 lowercase hex
//! characters; readers of person-written inputs (pins, trust files, manifests
//! given to `check`/`diff`) accept upper case and normalise it, while readers of
//! canonical artefacts (a bundle's MANIFEST) insist on lower case. Both parsers
//! live here so that the rule is stated exactly once.
//!
//! Hashing reads files sequentially with a large buffer. `sha2` picks the SHA-NI
//! code path at run time, so one core hashes at the same rate as
//! `openssl dgst -sha256`; parallelism across files is the caller's business
//! (see `manifest`).

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::progress::Progress;

/// Size of the read buffer used when hashing files: large enough to amortise
/// system calls, small enough to stay in L2 alongside the hash state.
pub const READ_BUFFER: usize = 1 << 20;

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest(pub [u8; 32]);

/// Errors from parsing digests or hashing files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DigestError {
    /// The text is not 64 hex characters.
    #[error("expected 64 hex characters for a SHA-256 digest, found {found:?}")]
    BadHex {
        /// The offending text (truncated).
        found: String,
    },
    /// Upper-case hex where only canonical lower case is allowed.
    #[error(
        "digest {found:?} is not lower case; canonical digests are 64 lowercase hex characters"
    )]
    NotLowercase {
        /// The offending text.
        found: String,
    },
    /// A `sha256:<hex>` string lacks its prefix.
    #[error("expected \"sha256:<64 hex>\", found {found:?}")]
    BadPrefixed {
        /// The offending text (truncated).
        found: String,
    },
    /// Reading a file failed.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

fn truncate_for_message(s: &str) -> String {
    if s.chars().count() > 80 {
        let t: String = s.chars().take(77).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}

impl Sha256Digest {
    /// The digest of a byte string.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// 64 lowercase hex characters.
    pub fn to_hex(&self) -> String {
        String::from_utf8(self.hex_bytes().to_vec()).unwrap_or_default()
    }

    /// The 64 lowercase hex digits as bytes, without an allocation (a
    /// manifest of a million entries hashes a million of them).
    pub fn hex_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        // 32 bytes into 64: the lengths always fit.
        let _ = hex::encode_to_slice(self.0, &mut out);
        out
    }

    /// `sha256:<64 lowercase hex>`, the form used in proofpack's own JSON.
    pub fn prefixed(&self) -> String {
        format!("sha256:{}", self.to_hex())
    }

    /// Parses 64 hex characters of either case (person-written inputs).
    pub fn parse_hex(s: &str) -> Result<Self, DigestError> {
        if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(DigestError::BadHex {
                found: truncate_for_message(s),
            });
        }
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| DigestError::BadHex {
            found: truncate_for_message(s),
        })?;
        Ok(Sha256Digest(out))
    }

    /// Parses 64 lowercase hex characters (canonical artefacts only).
    pub fn parse_hex_canonical(s: &str) -> Result<Self, DigestError> {
        let d = Self::parse_hex(s)?;
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(DigestError::NotLowercase {
                found: s.to_string(),
            });
        }
        Ok(d)
    }

    /// Parses `sha256:<hex>` (hex of either case).
    pub fn parse_prefixed(s: &str) -> Result<Self, DigestError> {
        match s.strip_prefix("sha256:") {
            Some(h) => Self::parse_hex(h),
            None => Err(DigestError::BadPrefixed {
                found: truncate_for_message(s),
            }),
        }
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({})", self.to_hex())
    }
}

impl serde::Serialize for Sha256Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for Sha256Digest {
    /// Accepts either case (person-written JSON); canonical checks happen
    /// where canonical form is required.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Sha256Digest::parse_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// An incremental SHA-256 hasher that also counts bytes.
#[derive(Clone, Default)]
pub struct Hasher {
    inner: Sha256,
    len: u64,
}

impl Hasher {
    /// A fresh hasher.
    pub fn new() -> Self {
        Self::default()
    }
    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.inner.update(bytes);
        self.len += bytes.len() as u64;
    }
    /// Bytes fed so far.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// True when nothing was fed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The digest and the byte count.
    pub fn finish(self) -> (Sha256Digest, u64) {
        (Sha256Digest(self.inner.finalize().into()), self.len)
    }
}

/// Hashes everything a reader yields, reporting progress per chunk.
pub fn hash_reader<R: Read>(
    mut r: R,
    buf: &mut [u8],
    progress: &dyn Progress,
) -> io::Result<(Sha256Digest, u64)> {
    let mut h = Hasher::new();
    loop {
        let n = match r.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        h.update(&buf[..n]);
        progress.advance(n as u64);
        if progress.cancelled() {
            return Err(crate::progress::cancelled_error());
        }
    }
    Ok(h.finish())
}

/// Hashes a file's content (following a symlink), returning digest and size.
pub fn hash_file(path: &Path, progress: &dyn Progress) -> Result<(Sha256Digest, u64), DigestError> {
    hash_file_sized(path, None, progress)
}

/// [`hash_file`] for a caller that already knows the file's size from
/// `stat` (saves one system call per file on trees of many small files).
/// The hint only sizes the buffer; the content is read to its real end.
pub fn hash_file_sized(
    path: &Path,
    size_hint: Option<u64>,
    progress: &dyn Progress,
) -> Result<(Sha256Digest, u64), DigestError> {
    let io_err = |source| DigestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = File::open(path).map_err(io_err)?;
    let hint = match size_hint {
        Some(n) => n,
        None => f.metadata().map(|m| m.len()).unwrap_or(0),
    };
    // Small files get a buffer of their own size (+1, so that one read can
    // return the whole file), large ones the fixed sequential-read buffer.
    let cap = (hint as usize).saturating_add(1).clamp(4096, READ_BUFFER);
    let mut buf = vec![0u8; cap];
    hash_reader(f, &mut buf, progress).map_err(io_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(
            Sha256Digest::of_bytes(b"").to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            Sha256Digest::of_bytes(b"abc").to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn hex_case_rules() {
        let lower = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let upper = lower.to_ascii_uppercase();
        assert_eq!(
            Sha256Digest::parse_hex(&upper).unwrap(),
            Sha256Digest::parse_hex(lower).unwrap()
        );
        assert!(Sha256Digest::parse_hex_canonical(lower).is_ok());
        assert!(matches!(
            Sha256Digest::parse_hex_canonical(&upper),
            Err(DigestError::NotLowercase { .. })
        ));
        assert!(Sha256Digest::parse_hex(&lower[1..]).is_err());
        assert!(Sha256Digest::parse_hex(&format!("{}g", &lower[1..])).is_err());
        assert!(Sha256Digest::parse_prefixed(&format!("sha256:{lower}")).is_ok());
        assert!(Sha256Digest::parse_prefixed(lower).is_err());
    }
}
