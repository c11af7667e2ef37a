//! proofpack: verifiable evidence for published GPU-serving benchmark results.
//!
//! The library does the work and returns values; the `proofpack` binary only
//! parses arguments, calls it and prints. Modules are layered, each importing
//! only those below it (and the few neighbours of its own layer named
//! here); `tests/layers.rs` checks the rule on the source:
//!
//! 1. [`digest`], [`report`], [`progress`], [`atomic`], [`timefmt`],
//!    [`strictjson`], [`capped`], [`numpy`]: SHA-256, the verification
//!    report, progress sinks (which `digest` reports to), whole-or-nothing
//!    file output, RFC 3339 timestamps, the repeated-key check for every JSON
//!    proofpack trusts, the one size-capped whole read, and numpy's
//!    statistics reproduced to the bit.
//! 2. [`manifest`]: content-addressed manifests of file sets;
//!    [`publication`]: a published write-up's tables and statements,
//!    read; [`partition`]: one tree hashed in parts on many machines, and
//!    merged (uses `manifest`); [`html`]: the report as one self-contained
//!    page, drawn from the JSON report;
//!    [`keys`]: Ed25519 keys, key ids, the trust file and the one strict
//!    signature check; [`attest`]: DSSE envelopes and in-toto Statements
//!    (uses `keys`); [`safetensors`]: shard headers and the shard index,
//!    checked from the headers alone (`manifest` uses it for header digests
//!    and the launch check's structure step).
//! 3. [`bundle`]: sealed, deterministic tar.gz bundles and their streaming
//!    verification (signed seals through [`attest`]); [`catalog`]: the
//!    local SQLite ledger of seals and verifications, named baseline
//!    manifests and the hash cache (never the source of truth); [`fleet`]:
//!    signed host launch-check reports and the fleet-wide verdict; [`run`]:
//!    the run's documents as read, with no checks (`qualification.json` and
//!    its bindings, client records, router journals, metrics, the request-id
//!    map, the record deriver interface); [`bagit`]: a bundle written out as
//!    a BagIt bag, and a bag's own checks (uses `bundle`'s unpacking and
//!    seal checks).
//! 4. [`verify`]: end-to-end verification of a qualification run, one entry
//!    point ([`verify::verify`]) for a bundle, a run directory or a BagIt
//!    bag: the evidence pass, the check families in order, the verdict and
//!    the page data.
//! 5. [`peers`]: results of other benchmark tools (vLLM, SGLang,
//!    InferenceX rows and receipts) verified in their own formats (uses
//!    `run`'s claims).
//! 6. [`adopt`]: from a benchmark client's result files to a run directory
//!    and its write-up (`run new`, `run import`, `publish`), above `verify`
//!    and `peers`; `verify` reaches its record derivation through
//!    [`run::deriver::RecordDeriver`], which `adopt::peer_deriver::PeerDeriver`
//!    implements.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adopt;
pub mod atomic;
pub mod attest;
pub mod bagit;
pub mod bundle;
pub mod capped;
pub mod catalog;
pub mod digest;
pub mod fleet;
pub mod html;
pub mod keys;
pub mod manifest;
pub mod numpy;
pub mod partition;
pub mod peers;
pub mod progress;
pub mod publication;
pub mod report;
pub mod run;
pub mod safetensors;
pub mod strictjson;
pub mod timefmt;
pub mod verify;

/// The tool name and version as written into seals and catalogs.
pub const TOOL: &str = concat!("proofpack ", env!("CARGO_PKG_VERSION"));
