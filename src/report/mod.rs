//! The verification report (spec section 7) and exit codes.
//!
//! Every verifying operation in proofpack returns a [`Report`]: a list of
//! checks in the order they ran, each with a typed [`Outcome`]. A report is
//! the answer to "does the evidence hold?"; an `Err` from a library call means
//! the question could not be answered at all (bad argument file, I/O error).
//! Keeping the two apart is what lets an auditor trust exit status 0 and read
//! exit status 1 at once.
//!
//! The verdict (`ok`) and the counts (`summary`) are derived from the
//! outcomes every time they are asked for, never stored: a report whose
//! verdict disagrees with its checks cannot be built. [`Report::push`] is
//! the only way a check gets in.
//!
//! Each check belongs to an *area* (the group a checklist, a page or a JUnit
//! file shows it under). The code that runs a family of checks names the
//! area with [`Report::enter`]; a check may name its own with
//! [`Check::in_area`]; otherwise its area is the head of its id (the text
//! before the first `:` or `.`).
//!
//! A report of `verify` also carries the HTML page's data ([`page`]): typed
//! here, below both the verifier that writes it and the page that reads it.

pub mod junit;
pub mod page;
mod saved;
mod types;

pub use saved::{check_saved, SavedReportError};
pub use types::needs::{group_by_cause, Causes};
pub use types::{
    Check, Kind, Mark, Outcome, Reason, Report, Strictness, Summary, EXIT_ERROR, EXIT_FAILED,
    EXIT_OK, NOT_CHECKABLE, REASON_NOT_CHECKABLE, REPORT_SCHEMA,
};
