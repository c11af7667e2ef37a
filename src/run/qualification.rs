//! Strict types for the qualification's own files (spec section 6).
//!
//! `qualification.json` and `pins.json` are proofpack's schemas: unknown
//! fields are errors (`deny_unknown_fields`), duplicate keys are errors (serde
//! rejects a repeated struct field), names must be unique. Client records and
//! router journal events are written by other programs (the benchmark client,
//! the router): every field the spec names is required and strictly typed,
//! statuses are case-sensitive, but extra fields are tolerated so that a
//! client may log more than proofpack reads (see docs/qualification.md).

use std::collections::BTreeSet;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use crate::digest::Sha256Digest;
use crate::manifest::validate_path;
use crate::strictjson::reject_duplicate_json_keys;

pub use crate::run::bindings::{BindingCheck, StatementBinding};
pub use crate::run::record::{ClientRecord, JournalEvent, Status, MAX_REQUEST_ID_BYTES};

/// The file every run root holds.
pub const QUALIFICATION_FILE: &str = "qualification.json";

/// Schema tag of `qualification.json`.
pub const QUALIFICATION_SCHEMA: &str = "proofpack/qualification/v1";
/// Schema tag of a pins file.
pub const PINS_SCHEMA: &str = "proofpack/pins/v1";
/// The largest `qualification.json` or pins file proofpack reads.
pub const MAX_SMALL_FILE: u64 = 16 << 20;

/// `qualification.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qualification {
    /// Always [`QUALIFICATION_SCHEMA`].
    pub schema: String,
    /// The qualification's name (also the bundle's root directory).
    pub name: String,
    /// The model every engine must have served.
    pub model: String,
    /// Service-level objective the points are judged against.
    pub slo: Slo,
    /// The qualified fleet: one attestation per engine.
    pub engines: Vec<EngineRef>,
    /// Subjects every engine attestation must carry (always at least
    /// [`ALWAYS_REQUIRED_SUBJECTS`]; see [`Qualification::all_required_subjects`]).
    pub required_subjects: Vec<String>,
    /// Measured points.
    pub points: Vec<Point>,
    /// The benchmark plan (a JSON file of the run) the points were run
    /// from; required for a verdict that holds.
    #[serde(default)]
    pub plan: Option<String>,
    /// How far (seconds) the router journal's times may differ from
    /// the client's (default [`DEFAULT_CLOCK_TOLERANCE_S`], at most
    /// [`MAX_CLOCK_TOLERANCE_S`]).
    #[serde(default)]
    pub clock_tolerance_s: Option<f64>,
    /// Named values of the run (a file's digest, or a value inside a
    /// JSON file of the run), for publications and pins to refer to.
    #[serde(default)]
    pub facts: Vec<Fact>,
    /// Signed host launch-check reports (files of the run), one per
    /// engine host, checked against the attested weights and config.
    #[serde(default)]
    pub host_checks: Vec<String>,
    /// The qualified fleet file of the run, whose SHA-256 every host
    /// report names (`fleet`) and which lists every engine's host.
    #[serde(default)]
    pub qualified_fleet: Option<String>,
    /// The JSON manifest record of the attested weights (sizes and
    /// shard header digests), which the host reports' totals and shard
    /// headers must equal.
    #[serde(default)]
    pub weights_record: Option<String>,
    /// How long (seconds) before an engine's launch its host's launch
    /// check may have run (default [`DEFAULT_HOST_CHECK_WINDOW_S`], at most
    /// [`MAX_HOST_CHECK_WINDOW_S`]).
    #[serde(default)]
    pub host_check_window_s: Option<f64>,
    /// The run's files by role (role name -> path globs), the
    /// publisher's map the write-up's inventory sentence is read against.
    #[serde(default)]
    pub roles: std::collections::BTreeMap<String, Vec<String>>,
    /// Statements of the write-up the publisher binds to evidence.
    #[serde(default)]
    pub statements: Vec<StatementBinding>,
}

/// Default window before an engine's launch in which its host's launch
/// check counts: a day.
pub const DEFAULT_HOST_CHECK_WINDOW_S: f64 = 86_400.0;
/// Longest window a qualification may state: a week. A check older than
/// that says nothing of the weights the engine loaded.
pub const MAX_HOST_CHECK_WINDOW_S: f64 = 7.0 * 86_400.0;

/// A named value of the run: without `pointer`, the SHA-256 of
/// `file`; with it, the JSON value it points at (RFC 6901) in `file`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    /// The name publications and pins use (`benchmark-client-source`).
    pub name: String,
    /// A file of the run.
    pub file: String,
    /// A JSON pointer into the file (`/client/revision`).
    #[serde(default)]
    pub pointer: Option<String>,
}

/// Subjects every engine attestation carries whatever the qualification
/// lists: a qualification may add subjects, not remove these.
pub const ALWAYS_REQUIRED_SUBJECTS: [&str; 3] = ["weights.manifest", "config.json", "engine-image"];

/// Default clock tolerance between client records and the router journal.
pub const DEFAULT_CLOCK_TOLERANCE_S: f64 = 0.5;
/// Largest clock tolerance a qualification may declare: beyond a second the
/// journal would no longer witness latencies measured in seconds.
pub const MAX_CLOCK_TOLERANCE_S: f64 = 1.0;

/// Fewest significant digits a published claim needs to be checked: with
/// fewer, half a unit of the last digit is a tolerance of 5% or more.
pub const MIN_SIGNIFICANT_DIGITS: u32 = 3;

/// The SLO of a qualification.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    /// Largest acceptable time to first token, seconds.
    pub ttft_s: f64,
    /// Largest acceptable time per output token, seconds.
    pub tpot_s: f64,
    /// Smallest acceptable share of requests within limits (0..=1).
    pub attainment: f64,
}

/// An engine of the qualified fleet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRef {
    /// Engine id, as in the attestation's `predicate.engine.id`.
    pub id: String,
    /// Path of its DSSE envelope, relative to the run root.
    pub attestation: String,
}

/// A measured point.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Point name (`rate-0.5`).
    pub name: String,
    /// Offered request rate, requests/s.
    pub offered_rate: f64,
    /// Measured (non-warmup) requests.
    pub requests: u64,
    /// Warmup requests.
    pub warmup: u64,
    /// Client records file (JSON Lines), relative to the run root.
    pub client_records: String,
    /// Router journal file (JSON Lines), relative to the run root;
    /// optional: a point without one is verified on its client records
    /// alone and the verdict says so (no second witness).
    #[serde(default)]
    pub journal: Option<String>,
    /// What was published for this point.
    pub claims: Claims,
    /// The benchmark client's own result file the client records
    /// were derived from (`run import`), re-derived by `verify`.
    #[serde(default)]
    pub source: Option<PointSource>,
    /// The router's own log the journal was derived from (`run import
    /// --journal`), derived again by `verify`.
    #[serde(default)]
    pub journal_source: Option<JournalSource>,
}

/// The router log a point's journal was derived from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalSource {
    /// The log, a file of the run (`inputs/rate-5.litellm.jsonl`).
    pub file: String,
    /// The router that wrote it: `litellm` (its `StandardLoggingPayload`
    /// lines).
    pub format: String,
    /// The derivation rules, [`DERIVE_RULES`].
    pub rules: String,
}

impl Point {
    /// Its requests, measured and warmup (saturating: the run's total is
    /// checked against its limit before anything is read).
    pub fn declared_requests(&self) -> u64 {
        self.requests.saturating_add(self.warmup)
    }
}

/// The rules the client records of a point were derived by.
pub const DERIVE_RULES: &str = "proofpack/derive/v1";

/// Where a point's client records come from: a result file of the
/// benchmark client kept in the run, and the parameters of the derivation
/// (contract section 6, "Client records derived from a result file").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointSource {
    /// The result file, a file of the run (`inputs/rate-5.vllm.json`).
    pub file: String,
    /// The client that wrote it: `vllm` (the only format with per-request
    /// send times today).
    pub format: String,
    /// The derivation rules, [`DERIVE_RULES`].
    pub rules: String,
    /// Request ids are this prefix and the request's index in the file
    /// (`vllm bench serve --request-id-prefix`).
    pub request_id_prefix: String,
    /// The offset from UTC of the file's `date` (`+HH:MM` or `-HH:MM`): the
    /// client writes its local time without a zone.
    pub utc_offset: String,
    /// Seconds added to the anchor (the file's `date`), at most
    /// [`MAX_ANCHOR_ADJUST_S`] either way: the date has one-second
    /// precision, and a journal may fix the clock origin within it.
    #[serde(default)]
    pub anchor_adjust_s: f64,
    /// SHA-256 of the benchmark plan the import was checked against: the
    /// plan was not changed after the point was imported.
    pub plan_sha256: Sha256Digest,
}

/// The longest point name (bytes): it is part of every check id and of
/// every derived record of the point.
pub const MAX_POINT_NAME_BYTES: usize = 128;

/// The most the anchor of derived records may be moved (seconds): the
/// precision of the result file's `date` (one second) plus one second of
/// the client's work between the last request and writing the date.
pub const MAX_ANCHOR_ADJUST_S: f64 = 2.0;

/// The published claims of a point; a claim left out is not checked.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// Completed requests per second, including drain.
    pub completed_rate: Option<Claim>,
    /// Output tokens per second, including drain.
    pub output_throughput: Option<Claim>,
    /// TTFT percentiles, seconds.
    pub ttft_s: Option<PercentileClaims>,
    /// TPOT percentiles, milliseconds.
    pub tpot_ms: Option<PercentileClaims>,
    /// Requests within the SLO (exact).
    pub within_limits: Option<u64>,
}

/// Published percentiles.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PercentileClaims {
    /// Median.
    pub p50: Option<Claim>,
    /// 95th percentile.
    pub p95: Option<Claim>,
    /// 99th percentile.
    pub p99: Option<Claim>,
}

impl PercentileClaims {
    /// `(key, percentile, claim)` for each of p50, p95, p99.
    pub fn items(&self) -> [(&'static str, f64, Option<&Claim>); 3] {
        [
            ("p50", 50.0, self.p50.as_ref()),
            ("p95", 95.0, self.p95.as_ref()),
            ("p99", 99.0, self.p99.as_ref()),
        ]
    }
}

/// A published decimal (`-?[0-9]+(\.[0-9]+)?`), kept as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The text as published.
    pub text: String,
    /// Its value.
    pub value: f64,
    /// Digits after the decimal point.
    pub decimals: u32,
}

impl Claim {
    /// Parses a published decimal string.
    pub fn parse(s: &str) -> Result<Claim, String> {
        let body = s.strip_prefix('-').unwrap_or(s);
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (body, None),
        };
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || frac.is_some_and(|f| !digits(f)) || s.len() > 40 {
            return Err(format!(
                "claim {s:?} is not a decimal as published (-?[0-9]+(.[0-9]+)?)"
            ));
        }
        let value: f64 = s
            .parse()
            .map_err(|_| format!("claim {s:?} is not a number"))?;
        Ok(Claim {
            text: s.to_string(),
            value,
            decimals: frac.map_or(0, |f| f.len() as u32),
        })
    }

    /// Significant digits as published: from the first non-zero digit to the
    /// last digit written ("0.850" has 3, "1000" has 4, "0" has none).
    pub fn significant_digits(&self) -> u32 {
        let digits: Vec<u8> = self.text.bytes().filter(u8::is_ascii_digit).collect();
        match digits.iter().position(|d| *d != b'0') {
            Some(i) => (digits.len() - i) as u32,
            None => 0,
        }
    }

    /// Half a unit of the last published digit, plus 1e-9.
    pub fn tolerance(&self) -> f64 {
        0.5 * 10f64.powi(-(self.decimals as i32)) + 1e-9
    }

    /// True if `actual` rounds to this claim (within [`Claim::tolerance`]).
    pub fn holds(&self, actual: f64) -> bool {
        actual.is_finite() && (actual - self.value).abs() <= self.tolerance()
    }
}

impl<'de> Deserialize<'de> for Claim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Claim::parse(&s).map_err(D::Error::custom)
    }
}

impl Qualification {
    /// The subjects every engine attestation must carry:
    /// [`ALWAYS_REQUIRED_SUBJECTS`] first, then any others the qualification
    /// lists, each once.
    pub fn all_required_subjects(&self) -> Vec<String> {
        let mut out: Vec<String> = ALWAYS_REQUIRED_SUBJECTS
            .iter()
            .map(|s| s.to_string())
            .collect();
        for s in &self.required_subjects {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    }

    /// The host launch-check window in seconds.
    pub fn host_check_window(&self) -> f64 {
        self.host_check_window_s
            .unwrap_or(DEFAULT_HOST_CHECK_WINDOW_S)
    }

    /// The journal clock tolerance in seconds.
    pub fn clock_tolerance(&self) -> f64 {
        self.clock_tolerance_s.unwrap_or(DEFAULT_CLOCK_TOLERANCE_S)
    }

    /// Parses and validates `qualification.json` bytes.
    pub fn parse(bytes: &[u8]) -> Result<Qualification, String> {
        reject_duplicate_json_keys(bytes).map_err(|e| format!("qualification.json: {e}"))?;
        let q: Qualification =
            serde_json::from_slice(bytes).map_err(|e| format!("qualification.json: {e}"))?;
        q.validate()?;
        Ok(q)
    }

    fn validate(&self) -> Result<(), String> {
        if self.schema != QUALIFICATION_SCHEMA {
            return Err(format!(
                "qualification.json: schema is {:?}, expected {QUALIFICATION_SCHEMA:?}",
                self.schema
            ));
        }
        if self.name.is_empty() || self.model.is_empty() {
            return Err("qualification.json: name and model must not be empty".into());
        }
        let s = &self.slo;
        if !(s.ttft_s > 0.0 && s.tpot_s > 0.0 && (0.0..=1.0).contains(&s.attainment)) {
            return Err(
                "qualification.json: slo needs ttft_s > 0, tpot_s > 0 and 0 <= attainment <= 1"
                    .into(),
            );
        }
        if self.engines.is_empty() {
            return Err(
                "qualification.json: engines is empty; a qualification needs attested engines"
                    .into(),
            );
        }
        let mut ids = BTreeSet::new();
        for e in &self.engines {
            if e.id.is_empty() || !ids.insert(e.id.as_str()) {
                return Err(format!(
                    "qualification.json: engine id {:?} is empty or listed twice",
                    e.id
                ));
            }
            check_path("engines[].attestation", &e.attestation)?;
        }
        let mut subj = BTreeSet::new();
        for s in &self.required_subjects {
            if s.is_empty() || !subj.insert(s.as_str()) {
                return Err(format!(
                    "qualification.json: required subject {s:?} is empty or listed twice"
                ));
            }
        }
        if self.points.is_empty() {
            return Err("qualification.json: points is empty".into());
        }
        if let Some(plan) = &self.plan {
            check_path("plan", plan)?;
        }
        let mut host_files = BTreeSet::new();
        for h in &self.host_checks {
            check_path("host_checks[]", h)?;
            if !host_files.insert(h.as_str()) {
                return Err(format!(
                    "qualification.json: host check {h:?} is listed twice"
                ));
            }
        }
        for (field, path) in [
            ("qualified_fleet", &self.qualified_fleet),
            ("weights_record", &self.weights_record),
        ] {
            if let Some(p) = path {
                check_path(field, p)?;
            }
        }
        crate::run::bindings::roles_fit(&self.roles)
            .map_err(|e| format!("qualification.json: {e}"))?;
        for (i, b) in self.statements.iter().enumerate() {
            let at = format!("statements[{i}] ({:?})", b.text);
            if b.text.split_whitespace().next().is_none() {
                return Err(format!("qualification.json: {at}: the text is empty"));
            }
            b.arguments_fit()
                .map_err(|e| format!("qualification.json: {at}: check {} {e}", b.check.as_str()))?;
            for (k, p) in b.files() {
                check_path(&format!("{at} {k}"), p)?;
            }
        }
        if let Some(w) = self.host_check_window_s {
            if !(w.is_finite() && w > 0.0 && w <= MAX_HOST_CHECK_WINDOW_S) {
                return Err(format!(
                    "qualification.json: host_check_window_s is {w}; it must be > 0 and at most {MAX_HOST_CHECK_WINDOW_S} s (a week: an older launch check says nothing of the weights the engine loaded)"
                ));
            }
        }
        let mut fact_names = BTreeSet::new();
        for f in &self.facts {
            if f.name.is_empty() || !fact_names.insert(f.name.as_str()) {
                return Err(format!(
                    "qualification.json: fact name {:?} is empty or listed twice",
                    f.name
                ));
            }
            check_path("facts[].file", &f.file)?;
            if let Some(p) = &f.pointer {
                if !p.is_empty() && !p.starts_with('/') {
                    return Err(format!(
                        "qualification.json: fact {:?}: pointer {p:?} is not a JSON pointer (RFC 6901: empty, or starting with '/')",
                        f.name
                    ));
                }
            }
        }
        if let Some(t) = self.clock_tolerance_s {
            if !(t.is_finite() && t > 0.0 && t <= MAX_CLOCK_TOLERANCE_S) {
                return Err(format!(
                    "qualification.json: clock_tolerance_s is {t}; it must be > 0 and at most {MAX_CLOCK_TOLERANCE_S} s (a wider tolerance would let the journal witness nothing)"
                ));
            }
        }
        let mut names = BTreeSet::new();
        let mut client_files = BTreeSet::new();
        for p in &self.points {
            if p.name.is_empty() || !names.insert(p.name.as_str()) {
                return Err(format!(
                    "qualification.json: point name {:?} is empty or listed twice",
                    p.name
                ));
            }
            check_path("points[].client_records", &p.client_records)?;
            if let Some(j) = &p.journal {
                check_path("points[].journal", j)?;
            }
            point_sources(p)?;
            if !client_files.insert(p.client_records.as_str()) {
                return Err(format!(
                    "qualification.json: client records file {:?} is named by two points; each point has its own file",
                    p.client_records
                ));
            }
            if !(p.offered_rate.is_finite() && p.offered_rate > 0.0) {
                return Err(format!(
                    "qualification.json: point {:?}: offered_rate must be > 0",
                    p.name
                ));
            }
            if p.requests == 0 {
                return Err(format!(
                    "qualification.json: point {:?}: requests must be > 0",
                    p.name
                ));
            }
        }
        for p in &self.points {
            if let Some(j) = p.journal.as_deref().filter(|j| client_files.contains(j)) {
                return Err(format!(
                    "qualification.json: {j:?} is named both as client records and as a journal"
                ));
            }
            if let Some(f) = p.source.as_ref().map(|s| s.file.as_str()) {
                let journal = self.points.iter().any(|o| o.journal.as_deref() == Some(f));
                if client_files.contains(f) || journal {
                    return Err(format!(
                        "qualification.json: point {:?}: its source file {f:?} is also named as client records or as a journal",
                        p.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A point's `journal_source` and `source`: paths of the run, the rules
/// this proofpack derives by, an anchor moved within its bound, and
/// neither naming the point's own records or journal.
fn point_sources(p: &Point) -> Result<(), String> {
    // Copied into every check id and every derived record: bounded before
    // anything is derived.
    if p.name.len() > MAX_POINT_NAME_BYTES {
        return Err(format!(
            "qualification.json: a point name of {} bytes (beginning {:?}); at most {MAX_POINT_NAME_BYTES}",
            p.name.len(),
            p.name.chars().take(32).collect::<String>()
        ));
    }
    if let Some(src) = &p.source {
        let prefix = &src.request_id_prefix;
        if prefix.len() + 20 > MAX_REQUEST_ID_BYTES {
            return Err(format!(
                "qualification.json: point {:?}: source.request_id_prefix of {} bytes; the request ids it makes (the prefix and an index of up to 20 digits) would be longer than the {MAX_REQUEST_ID_BYTES} bytes proofpack reads",
                p.name,
                prefix.len()
            ));
        }
    }
    if let Some(js) = &p.journal_source {
        check_path("points[].journal_source.file", &js.file)?;
        if p.journal.is_none() || p.source.is_none() || js.rules != DERIVE_RULES {
            return Err(format!(
                "qualification.json: point {:?}: a journal_source needs the point's journal and source, and rules {DERIVE_RULES:?}",
                p.name
            ));
        }
        if Some(&js.file) == p.journal.as_ref() || js.file == p.client_records {
            return Err(format!(
                "qualification.json: point {:?}: the journal's source is the journal or the client records file",
                p.name
            ));
        }
    }
    if let Some(src) = &p.source {
        check_path("points[].source.file", &src.file)?;
        if src.rules != DERIVE_RULES {
            return Err(format!(
                "qualification.json: point {:?}: source.rules is {:?}; this proofpack derives by {DERIVE_RULES:?}",
                p.name, src.rules
            ));
        }
        if !(src.anchor_adjust_s.is_finite() && src.anchor_adjust_s.abs() <= MAX_ANCHOR_ADJUST_S) {
            return Err(format!(
                "qualification.json: point {:?}: source.anchor_adjust_s is {}; at most {MAX_ANCHOR_ADJUST_S} s either way (the precision of the file's date)",
                p.name, src.anchor_adjust_s
            ));
        }
        if src.file == p.client_records {
            return Err(format!(
                "qualification.json: point {:?}: the source file is the client records file",
                p.name
            ));
        }
    }
    Ok(())
}

fn check_path(field: &str, p: &str) -> Result<(), String> {
    validate_path(p).map_err(|why| {
        format!("qualification.json: {field} {p:?} is not a relative run path: {why}")
    })?;
    if p == "qualification.json" {
        return Err(format!(
            "qualification.json: {field} names qualification.json itself"
        ));
    }
    Ok(())
}

/// A pins file: the published values an auditor checks against.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    /// Always [`PINS_SCHEMA`].
    pub schema: String,
    /// The pins, names unique.
    pub pins: Vec<Pin>,
}

/// One published value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// `bundle`, a subject name, a fact name, or any name with a `path`.
    pub name: String,
    /// The published digest (either case accepted, normalised); a pin has
    /// this or `value`.
    #[serde(default)]
    pub sha256: Option<Sha256Digest>,
    /// A published value (a string or a number), checked against the
    /// fact of the pin's name.
    #[serde(default)]
    pub value: Option<serde_json::Value>,
    /// A file of the run this pin is checked against.
    #[serde(default)]
    pub path: Option<String>,
    /// Line count of the manifest (under `manifests/`) with this digest.
    #[serde(default)]
    pub files: Option<u64>,
    /// The number of `.safetensors` files that manifest lists.
    #[serde(default)]
    pub shards: Option<u64>,
}

impl Pins {
    /// Parses a pins file; `origin` names it in errors.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Pins, String> {
        reject_duplicate_json_keys(bytes)
            .map_err(|e| format!("{origin}: invalid pins file: {e}"))?;
        let p: Pins = serde_json::from_slice(bytes)
            .map_err(|e| format!("{origin}: invalid pins file: {e}"))?;
        if p.schema != PINS_SCHEMA {
            return Err(format!(
                "{origin}: schema is {:?}, expected {PINS_SCHEMA:?}",
                p.schema
            ));
        }
        if p.pins.is_empty() {
            return Err(format!(
                "{origin}: the pins file lists no pins; a pinned verdict needs at least one published value to compare (give the values the publication states, or leave --pins out for an unpinned verdict)"
            ));
        }
        let mut names = BTreeSet::new();
        for pin in &p.pins {
            if pin.name.is_empty() || !names.insert(pin.name.as_str()) {
                return Err(format!(
                    "{origin}: pin name {:?} is empty or listed twice",
                    pin.name
                ));
            }
            match (&pin.sha256, &pin.value) {
                (Some(_), None) => {}
                (None, Some(v)) if v.is_string() || v.is_number() => {
                    if pin.path.is_some() || pin.files.is_some() || pin.shards.is_some() {
                        return Err(format!(
                            "{origin}: pin {:?}: a value pin has no path or files (those belong to sha256 pins)",
                            pin.name
                        ));
                    }
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "{origin}: pin {:?}: value must be a string or a number",
                        pin.name
                    ))
                }
                _ => {
                    return Err(format!(
                        "{origin}: pin {:?} needs exactly one of sha256 and value",
                        pin.name
                    ))
                }
            }
            if let Some(path) = &pin.path {
                validate_path(path).map_err(|why| {
                    format!(
                        "{origin}: pin {:?}: path {path:?} is not a relative run path: {why}",
                        pin.name
                    )
                })?;
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_parse_and_tolerance() {
        let c = Claim::parse("0.460").unwrap();
        assert_eq!(c.decimals, 3);
        assert!(c.holds(0.4604999));
        assert!(c.holds(0.4595));
        assert!(!c.holds(0.4606));
        assert!(Claim::parse("58").unwrap().holds(58.5));
        assert!(!Claim::parse("58").unwrap().holds(58.51));
        for bad in ["", "1.", ".5", "+1", "1e3", "1.2.3", "NaN", " 1"] {
            assert!(Claim::parse(bad).is_err(), "{bad}");
        }
        assert!(Claim::parse("-0.5").is_ok());
        for (text, sig) in [
            ("0.850", 3),
            ("1", 1),
            ("0", 0),
            ("0.000", 0),
            ("1000", 4),
            ("7.762", 4),
            ("08.5", 2),
            ("-0.0426", 3),
        ] {
            assert_eq!(
                Claim::parse(text).unwrap().significant_digits(),
                sig,
                "{text}"
            );
        }
    }

    #[test]
    fn records_strict() {
        let ok = r#"{"request_id":"a","point":"p","warmup":false,"status":"ok","sent_at":1,"first_token_at":2,"finished_at":3,"input_tokens":1,"output_tokens":2}"#;
        assert!(serde_json::from_str::<ClientRecord>(ok).is_ok());
        let upper = ok.replace("\"ok\"", "\"OK\"");
        assert!(serde_json::from_str::<ClientRecord>(&upper).is_err());
        let missing = ok.replace(",\"first_token_at\":2", "");
        assert!(serde_json::from_str::<ClientRecord>(&missing).is_err());
        let dup = ok.replace("\"warmup\":false", "\"warmup\":false,\"warmup\":true");
        assert!(serde_json::from_str::<ClientRecord>(&dup).is_err());
        let nan = ok.replace("\"sent_at\":1", "\"sent_at\":NaN");
        assert!(serde_json::from_str::<ClientRecord>(&nan).is_err());
    }
}
