//! The header block's layout: block size, field offsets, magics, typeflags
//! and the checksum, which the writer and the reader share.

use std::ops::Range;

/// Size of a tar block (headers, and the unit data is padded to).
pub(crate) const BLOCK: usize = 512;

/// Byte ranges of the fields of a header block (POSIX ustar; a GNU header
/// uses the same offsets up to `devminor` and no prefix).
pub(crate) mod field {
    use super::Range;

    /// Name (the last part of the path when a ustar prefix is used).
    pub(crate) const NAME: Range<usize> = 0..100;
    /// Mode, octal.
    pub(crate) const MODE: Range<usize> = 100..108;
    /// Owner id, octal.
    pub(crate) const UID: Range<usize> = 108..116;
    /// Group id, octal.
    pub(crate) const GID: Range<usize> = 116..124;
    /// Size, octal (or GNU base-256).
    pub(crate) const SIZE: Range<usize> = 124..136;
    /// Modification time, octal.
    pub(crate) const MTIME: Range<usize> = 136..148;
    /// Header checksum: six octal digits, NUL, space.
    pub(crate) const CHKSUM: Range<usize> = 148..156;
    /// The typeflag byte.
    pub(crate) const TYPEFLAG: usize = 156;
    /// Link name.
    pub(crate) const LINKNAME: Range<usize> = 157..257;
    /// Magic (`ustar\0`, or GNU's `ustar `).
    pub(crate) const MAGIC: Range<usize> = 257..263;
    /// Version (`00`, or GNU's ` \0`).
    pub(crate) const VERSION: Range<usize> = 263..265;
    /// Device major number, octal.
    pub(crate) const DEVMAJOR: Range<usize> = 329..337;
    /// Device minor number, octal.
    pub(crate) const DEVMINOR: Range<usize> = 337..345;
    /// ustar prefix of the path (GNU: other fields, and zero here).
    pub(crate) const PREFIX: Range<usize> = 345..500;
    /// Start of the area after the ustar prefix (zero in a ustar header).
    pub(crate) const USTAR_PAD: usize = 500;
}

/// POSIX ustar magic and version.
pub(crate) const USTAR_MAGIC: &[u8; 6] = b"ustar\0";
/// POSIX ustar version.
pub(crate) const USTAR_VERSION: &[u8; 2] = b"00";
/// GNU magic.
pub(crate) const GNU_MAGIC: &[u8; 6] = b"ustar ";
/// GNU version.
pub(crate) const GNU_VERSION: &[u8; 2] = b" \0";

/// Typeflags the format names (spec section 5 says which a bundle may hold).
pub(crate) mod typeflag {
    /// Regular file.
    pub(crate) const REGULAR: u8 = b'0';
    /// Regular file, pre-POSIX spelling.
    pub(crate) const REGULAR_OLD: u8 = 0;
    /// Directory.
    pub(crate) const DIRECTORY: u8 = b'5';
    /// PAX extended header for the next entry.
    pub(crate) const PAX: u8 = b'x';
    /// GNU long name for the next entry.
    pub(crate) const GNU_LONG_NAME: u8 = b'L';
    /// GNU long link name for the next entry.
    pub(crate) const GNU_LONG_LINK: u8 = b'K';
    /// PAX global header: records for every later entry.
    pub(crate) const PAX_GLOBAL: u8 = b'g';
}

/// The unsigned and the historic signed byte sum of a header block, with
/// the checksum field counted as eight spaces (what the checksum field
/// holds: the writer stores the unsigned one, the reader accepts only it).
pub(crate) fn checksums(h: &[u8; BLOCK]) -> (u64, i64) {
    let (mut sum, mut signed) = (0u64, 0i64);
    for (i, b) in h.iter().enumerate() {
        let b = if field::CHKSUM.contains(&i) { b' ' } else { *b };
        sum += b as u64;
        signed += b as i8 as i64;
    }
    (sum, signed)
}
