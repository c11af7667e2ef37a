//! The run's documents as read and written, with no checks: what the
//! verifier (`verify`), the adoption layer and the peers' readers
//! share.
//!
//! - [`qualification`]: `qualification.json` and `pins.json` (strict), with
//!   [`bindings`] (the roles and statements that speak of the write-up);
//! - [`record`]: one client record or router journal event as other
//!   programs write it; [`records`]: client records streamed with bounded
//!   memory; [`journal`]: router journals read line by line; [`idmap`]: the
//!   request-id map sized for millions of ids; [`sniff`]: request records
//!   found in files the qualification does not declare;
//! - [`plan`]: the benchmark plan the client was told to run, read
//!   leniently but strict in the fields proofpack uses;
//! - [`metrics`]: a point's metrics recomputed from its records;
//! - [`deriver`]: the interface through which a point's records are derived
//!   again from the benchmark client's own result file.

pub mod bindings;
pub mod deriver;
pub mod idmap;
pub mod journal;
pub mod metrics;
pub mod plan;
pub mod qualification;
pub mod record;
pub mod records;
pub mod sniff;

pub use qualification::QUALIFICATION_FILE;
