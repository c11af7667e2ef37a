//! From the benchmark people already run to a sealed, published,
//! verifiable result: `run new`, `run import`, `publish`.
//!
//! A release manager holds a result file of `vllm bench serve
//! --save-result --save-detailed` per point. This layer, above the
//! qualification ([`crate::verify`]) and the peer formats
//! ([`crate::peers`]), turns that into a run directory that `seal` and
//! `verify` take as they are:
//! - [`scaffold`]: `run new` writes `qualification.json`, the benchmark
//!   plan and the folders of a run;
//! - [`derive`]: the rules by which a result file's per-request arrays
//!   become client records (with [`clock`], the wall-clock anchor of its
//!   monotonic start times), and [`peer_deriver::PeerDeriver`], through which
//!   `verify` derives them again;
//! - [`import`]: `run import --point NAME FILE`, refusing what cannot
//!   become honest records; [`journal`]: `run import --journal`, a router's
//!   request log as the second witness;
//! - [`publish`] with [`writeup`]: the claims computed from the run and the
//!   write-up's tables (and standard sentences) in the layout `verify
//!   --publication` reads.
//!
//! [`runfile`] edits `qualification.json`. Nothing here prints or exits;
//! errors are [`AdoptError`], each an exit 2 for the binary.

pub mod clock;
pub mod derive;
mod error;
pub mod import;
pub mod journal;
pub mod peer_deriver;
pub mod publish;
pub mod runfile;
pub mod scaffold;
mod sentences;
pub mod writeup;

pub use error::AdoptError;
