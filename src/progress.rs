//! Progress reporting without printing.
//!
//! The library never prints (house rule); long operations instead report to a
//! [`Progress`] sink that the binary renders (indicatif on a terminal, nothing
//! otherwise). [`NoProgress`] is the silent sink for tests and library users.

/// A sink for progress of a long operation. Implementations must be cheap
/// and thread-safe: hashing threads call [`Progress::advance`] per chunk.
pub trait Progress: Sync {
    /// The amount of work is known: `bytes` in `items` files.
    fn start(&self, _bytes: u64, _items: u64) {}
    /// `bytes` more were processed.
    fn advance(&self, _bytes: u64) {}
    /// One more item (file, entry) was completed.
    fn item_done(&self) {}
    /// The operation ended.
    fn finish(&self) {}
    /// True when the user asked the operation to stop (the binary sets it on
    /// SIGINT/SIGTERM). Long loops poll it between chunks and give up with
    /// [`cancelled_error`], so that whatever they were writing is removed
    /// as on any other error.
    fn cancelled(&self) -> bool {
        false
    }
}

/// The error a long operation returns when [`Progress::cancelled`] says stop.
pub fn cancelled_error() -> std::io::Error {
    std::io::Error::other(CANCELLED)
}

/// The message of [`cancelled_error`].
pub const CANCELLED: &str = "interrupted by a signal";

/// True if `e` is (or wraps) [`cancelled_error`].
pub fn is_cancelled(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Other && e.to_string() == CANCELLED
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}
