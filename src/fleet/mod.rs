//! Launch checks on every host of a fleet (contract section 10): signed
//! host reports and a fleet-wide verdict.
//!
//! A fleet serves from many hosts, and one host with a stale or truncated
//! shard silently changes the result. [`host_check`] runs the closed-world
//! check of a host's weights directory against the pinned manifest (sizes
//! only, or every byte hashed) and the model config's digest, and
//! [`sign_report`] turns the outcome into a DSSE envelope holding an
//! in-toto Statement of type [`HOST_CHECK_PREDICATE_TYPE`], signed by the
//! host's key. The report records a failure as faithfully as a pass.
//!
//! [`verify_fleet`] is the other end: for every host the fleet selects,
//! exactly one report, signed by a key trusted for the `host` role, for the
//! pinned manifest, in at least the required mode, passed, and with the
//! pinned config; and no report for a host outside the fleet. It is used
//! by `fleet verify` and by `verify` for the host reports a qualification
//! lists. How the hosts are reached is the orchestrator's business
//! (Ansible, Slurm, Kubernetes: see `deploy/` and docs/fleet.md).

mod binding;
mod hostcheck;
mod require;
mod types;
mod verify;

pub use hostcheck::{host_check, sign_report, ConfigSource, HostCheckOptions, HostChecked};
pub use require::{Expect, FleetRequirements, TimeBounds, WeightsRecord};
pub use types::{
    parse_prefixed, FleetError, HostCheckPredicate, Mode, ShardHeader, HOST_CHECK_PREDICATE_TYPE,
    HOST_CHECK_PREDICATE_TYPE_V1, MAX_NAMED_FAILURES,
};
pub use verify::{
    verify_fleet, verify_fleet_files, FleetHosts, FleetVerification, HostRow, ReportIn,
};
