//! The evidence of a run, the same whichever way it arrived: the
//! [`collector`] is fed a run's files (from a run directory or from a
//! bundle's verified tar stream) and keeps what the checks need; the
//! [`context`] is the run as every check family reads it.

pub mod chain;
pub mod collector;
pub mod context;
