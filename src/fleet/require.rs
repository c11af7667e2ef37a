//! What a fleet's host reports are held to: the pinned digests and mode,
//! and the run, the fleet file, the weights record and the times
//! each check must fall between.

use std::collections::BTreeMap;

use super::types::Mode;
use crate::digest::Sha256Digest;

/// What is expected of a value a report states.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect<T> {
    /// Compared with this.
    Is(T),
    /// Not compared: the auditor did not ask (the detail says so).
    NotAsked(String),
    /// Not compared: the run holds nothing to compare with (evidence
    /// made by an older proofpack names no qualified fleet or weights
    /// record); the detail says so, and `--require-all` fails it.
    NoEvidence(String),
    /// Not known, because the check `cause` failed.
    Unknown {
        /// The id of the failed check.
        cause: String,
        /// Why, for the detail.
        why: String,
    },
}

/// What a weights record (a JSON manifest record) fixes of a host's
/// report: its totals and the header digest of every shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightsRecord {
    /// Where the record came from (for messages).
    pub origin: String,
    /// Files it lists.
    pub files: u64,
    /// Bytes it lists.
    pub bytes: u64,
    /// Its `.safetensors` entries and the header digest each pins.
    pub shards: BTreeMap<String, Option<Sha256Digest>>,
}

impl WeightsRecord {
    /// The facts of `m`, which must carry sizes (a JSON record).
    pub fn of(m: &crate::manifest::Manifest, origin: &str) -> Option<WeightsRecord> {
        Some(WeightsRecord {
            origin: origin.to_string(),
            files: m.len() as u64,
            bytes: m.total_bytes()?,
            shards: m
                .shard_specs()
                .into_iter()
                .map(|s| (s.path, s.header_sha256))
                .collect(),
        })
    }
}

/// What every host's report must show.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRequirements {
    /// The pinned weights manifest digest.
    pub weights: Sha256Digest,
    /// The pinned config digest, if any.
    pub config: Option<Sha256Digest>,
    /// The least mode accepted.
    pub mode: Mode,
    /// The run the reports must have been made for.
    pub run: Expect<String>,
    /// The digest of the fleet file they must name.
    pub fleet: Expect<Sha256Digest>,
    /// The weights record their totals and shard headers must equal;
    /// without one, they must agree across hosts (`<prefix>s.agree`).
    pub record: Expect<WeightsRecord>,
    /// When each host's check must have run.
    pub times: Expect<BTreeMap<String, TimeBounds>>,
    /// A report of the v1 predicate (no run, fleet or shard headers)
    /// has those bindings not checked instead of failed: a qualification
    /// sealed by an older proofpack still verifies, and its verdict says
    /// its launch checks are not bound. `fleet verify` fails them.
    pub accept_v1: bool,
}

impl FleetRequirements {
    /// The requirements of `fleet verify` outside a qualification: the
    /// pinned digests and mode; nothing bound to a run.
    pub fn pinned(weights: Sha256Digest, config: Option<Sha256Digest>, mode: Mode) -> Self {
        FleetRequirements {
            weights,
            config,
            mode,
            run: Expect::NotAsked(
                "no --run given; the run the reports name is not compared".into(),
            ),
            fleet: Expect::NotAsked("no fleet file digest to compare".into()),
            record: Expect::NotAsked(
                "no --weights-record given; compared across hosts (hosts.agree)".into(),
            ),
            times: Expect::NotAsked(
                "outside a qualification no launch or first request bounds it".into(),
            ),
            accept_v1: false,
        }
    }
}

/// When one host's check must have run, unix seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeBounds {
    /// Not before this (the engines' launch minus the stated window).
    pub not_before: f64,
    /// What `not_before` is.
    pub not_before_is: String,
    /// Not after this (the first request of the run).
    pub not_after: f64,
    /// What `not_after` is.
    pub not_after_is: String,
}
