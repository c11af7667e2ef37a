//! The float comparison of every peer recomputation: the files store full
//! float64 values, so a recomputation by the same definitions agrees to
//! rounding.

/// Relative tolerance for floats: the files store full float64 values, so
/// a recomputation by the same definitions agrees to rounding.
pub const REL_TOLERANCE: f64 = 1e-9;

/// True when `a` and `b` agree within [`REL_TOLERANCE`].
pub fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= REL_TOLERANCE * a.abs().max(b.abs())
}
