//! The evidence chain ([`crate::verify::evidence::chain`]) as the write-up's
//! row checks use it: a row whose link is missing is not checked when
//! nothing names the file, not checkable when it is named but unusable.

use crate::report::Check;
use crate::verify::checks::published::context::unmapped;
pub(super) use crate::verify::evidence::chain::{Chain, Link, Missing};

/// A row whose chain link is missing: not checked when nothing names the
/// file, not checkable when it is named but unusable.
pub(super) fn missing(id: String, at: &str, what: &str, m: Missing) -> Check {
    match m {
        Missing::NotNamed(why) => unmapped(id, at, what, &why),
        Missing::Unusable(why) => Check::not_checkable(id, format!("{at}: {why}")),
    }
}
