//! The local catalog: a ledger of seals and verifications, named baseline
//! manifests, and a hash cache, in one SQLite file. `handle` owns the
//! [`Catalog`] handle (opening and creating the file, the connection and its
//! lock), [`OpenOptions`] and the default location, and `error`
//! [`CatalogError`]; the parts live beside them, each an `impl Catalog`
//! block of its own:
//!
//! - `schema`: the tables, their migrations and the header checks
//!   (`application_id`, `user_version`), run when a catalog is opened;
//! - `ledger`: records of seals and verifications, and the queries that
//!   select them;
//! - `baselines`: manifests stored under a name;
//! - `cache`: the stat-keyed hash cache and its racy-clean rule;
//! - `row`: reading stored values back without trusting them (a crafted or
//!   damaged row is a [`CatalogError::BadRow`] naming it, never a panic),
//!   and [`shown_value`], the bounded form in which they are displayed.
//!
//! # Why it exists, and why it is never the source of truth
//!
//! Release managers and CI want memory: what was sealed, what was verified,
//! when and with what verdict, which manifest is the accepted baseline of a
//! model directory, and no rehashing of terabytes of unchanged shards on
//! every run. All of that is convenience. Nothing proofpack decides depends
//! on the catalog being present or intact: a verdict is always computed from
//! the evidence, and the catalog only records it afterwards. When the catalog
//! is missing, locked for too long, corrupt or of a newer schema, callers get
//! a typed [`CatalogError`] and carry on without it; the binary prints a
//! warning and the exit status is the one the evidence gives.
//!
//! # Concurrency
//!
//! Parallel CI jobs share one catalog file. SQLite in WAL mode lets readers
//! run beside one writer; every write here is a short `BEGIN IMMEDIATE`
//! transaction (taking the write lock up front, so that a transaction never
//! has to upgrade a stale read snapshot, which SQLite would refuse without
//! waiting), and a busy timeout makes a second writer wait instead of
//! failing. A writer that is still locked out after the timeout gets
//! [`CatalogError::Busy`].
//!
//! # The hash cache
//!
//! A [`CacheSession`] implements [`HashCache`](crate::manifest::HashCache)
//! for one root. It vouches for a digest only when the file's stat (device,
//! inode, size, mtime, ctime) is unchanged and both timestamps are more than
//! [`RACY_MARGIN_NS`] older than the moment hashing started ([`is_settled`]);
//! why that is safe is set out in `cache.rs` and in docs/catalog.md.

mod baselines;
mod cache;
mod error;
mod handle;
mod header;
mod import;
mod ledger;
mod row;
mod schema;

pub use baselines::{validate_baseline_name, BaselineInfo, MAX_BASELINE_NAME};
pub use cache::{is_settled, CacheSession, CacheStats, RACY_MARGIN_NS};
pub use error::CatalogError;
pub use handle::{default_path, rfc3339, Catalog, OpenOptions, DEFAULT_BUSY_TIMEOUT};
pub use header::{APPLICATION_ID, SCHEMA_VERSION};
pub use import::Imported;
pub use ledger::{
    RecordKind, RecordSummary, RunRecord, SealRecord, StoredRecord, VerificationRecord,
};
pub use row::shown_value;
