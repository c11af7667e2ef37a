//! The reader's limits: sizes, counts and the compression ratio a bundle may
//! reach, and the bounds on what a report says of one (re-exported by the
//! module).

/// Size limits of the bundle reader (spec section 5). A bundle that exceeds
/// one is rejected with a failed `bundle.limit:<name>` check; reading stops
/// there so that a hostile input cannot make the reader work without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Decompressed bytes of the whole tar stream (`total_bytes`).
    pub max_total_bytes: u64,
    /// Bytes of one entry (`entry_bytes`).
    pub max_entry_bytes: u64,
    /// Number of entries, files and directories (`entries`); the distinct
    /// directories a bundle's paths imply are bounded by the same number,
    /// so that the reader's path registry stays bounded.
    pub max_entries: u64,
    /// Bytes of one path, after PAX or GNU long names are applied (`path_bytes`).
    pub max_path_bytes: usize,
    /// Bytes of one PAX header or GNU long-name record (`pax_record_bytes`).
    pub max_pax_record_bytes: u64,
    /// Sustained decompressed-to-compressed ratio (`ratio`): over any
    /// stretch of the stream, the output may exceed `max_ratio` times the
    /// compressed bytes read by at most [`RATIO_BURST_BYTES`]. Honest
    /// evidence (JSON, JSON Lines, manifests) compresses 2:1 to 30:1; a
    /// gigabyte of zeros fits in the burst; a bomb, which needs about
    /// 1000:1 over gigabytes, does not.
    pub max_ratio: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_total_bytes: 64 << 30,
            max_entry_bytes: 16 << 30,
            max_entries: 1_000_000,
            max_path_bytes: 4096,
            max_pax_record_bytes: 1 << 20,
            max_ratio: DEFAULT_MAX_RATIO,
        }
    }
}

/// Default [`Limits::max_ratio`].
pub const DEFAULT_MAX_RATIO: u64 = 100;

/// Output beyond `max_ratio` times the input that the ratio limit allows in
/// any stretch of the stream: the burst of a token bucket that
/// `max_ratio` refills per compressed byte.
pub const RATIO_BURST_BYTES: u64 = 2 << 30;

/// Bytes read after the end of the gzip member, or after a gzip error, to
/// reach the end of the file. Past them reading stops: the trailing
/// data is reported as "at least" that much and the bundle's digest is not
/// checkable, so that `verify /dev/zero` or a bundle followed by gigabytes of
/// garbage ends at once.
pub const TRAILING_READ_LIMIT: u64 = 1 << 20;

/// Rejected or failed entries reported one check each; the rest are
/// counted in one `bundle.entries` check, so that a report stays bounded.
pub const MAX_REPORTED_ENTRY_FAILURES: usize = 1000;

/// Bytes of a rejected path echoed in its check id and messages when the path
/// is longer than the path limit: the first bytes, then "… (N bytes)".
pub const ECHOED_PATH_BYTES: usize = 200;
