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
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {}
