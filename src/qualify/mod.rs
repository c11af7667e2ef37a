//! End-to-end verification of a qualification run (spec section 6).
//!
//! This is what an auditor runs: given a run (a sealed bundle or a run
//! directory), the published pins and the trust roots, does the evidence
//! support exactly what was published? Every check runs and is reported;
//! nothing stops at the first failure, so one report shows everything that
//! is wrong.
//!
//! The work is split so that the checks never depend on where the files come
//! from: [`evidence`] feeds a [`evidence::Collector`] from a run directory or
//! from a bundle's verified tar stream, [`records`] streams JSON Lines with
//! bounded memory, [`metrics`] recomputes the published numbers (numpy's
//! percentile, bit for bit), [`pins`] compares published digests, and
//! [`table`] renders the recomputed table in the published layout.
//! [`bundled`] streams a sealed bundle twice through the bundle layer's
//! verifying reader. Engine attestations are verified through [`EngineAttestationVerifier`], so
//! that this layer states *what* must hold of an attestation and the
//! attestation layer states how a signature is checked.

pub mod attested;
pub mod bundled;
pub mod engines;
pub mod evidence;
pub mod facts;
pub mod metrics;
pub mod pagedata;
pub mod pins;
pub mod plan;
pub mod point;
pub mod published;
pub mod records;
pub mod schema;
pub mod table;
pub mod verdict;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use evidence::{collect_run_dir, open_in_root, Collected, Collector, Plan, Unusable};
use metrics::PointMetrics;
use plan::{Arrival, BenchmarkPlan};
use schema::{Pins, Qualification};

/// The predicate type of engine attestations (spec section 4).
pub const ENGINE_PREDICATE_TYPE: &str = crate::attest::ENGINE_PREDICATE_TYPE;

/// The file every run root holds.
pub const QUALIFICATION_FILE: &str = "qualification.json";

/// Errors that stop verification from running at all (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QualifyError {
    /// Reading the run directory failed.
    #[error(transparent)]
    RunDir(#[from] evidence::RunDirError),
    /// The bundle could not be read (I/O), or its seal file could not be read.
    #[error(transparent)]
    Bundle(crate::bundle::BundleError),
    /// The path given is neither a directory nor a file.
    #[error("{}: not a run directory or bundle file", path.display())]
    NotARun {
        /// The path.
        path: PathBuf,
    },
}

/// What a verified engine attestation says, as far as a qualification cares.
#[derive(Debug, Clone)]
pub struct AttestedEngine {
    /// The Statement's `predicateType`.
    pub predicate_type: String,
    /// Subjects (name, sha256) in statement order.
    pub subjects: Vec<(String, Sha256Digest)>,
    /// The engine predicate's facts, or why it could not be read.
    pub predicate: Result<EngineFacts, String>,
    /// Key ids of the trusted signers whose signatures verified.
    pub signers: Vec<String>,
}

/// The engine predicate's facts a qualification checks.
#[derive(Debug, Clone)]
pub struct EngineFacts {
    /// `predicate.engine.id`.
    pub id: String,
    /// `predicate.engine.name`.
    pub name: String,
    /// `predicate.engine.version`.
    pub version: String,
    /// `predicate.model`.
    pub model: String,
    /// `predicate.engine.image` (`sha256:<hex>`).
    pub image: Option<String>,
    /// `predicate.host`.
    pub host: String,
    /// `predicate.accelerator.name`.
    pub accelerator: String,
    /// `predicate.accelerator.count`.
    pub accelerator_count: u64,
    /// `predicate.parallelism`.
    pub parallelism: BTreeMap<String, u64>,
    /// `predicate.launched_at` as written.
    pub launched_at: String,
    /// `predicate.launched_at` in unix seconds.
    pub launched_unix: f64,
}

impl EngineFacts {
    /// The facts of a checked engine predicate.
    pub fn from_predicate(p: &crate::attest::EnginePredicate) -> EngineFacts {
        EngineFacts {
            id: p.engine.id.clone(),
            name: p.engine.name.clone(),
            version: p.engine.version.clone(),
            model: p.model.clone(),
            image: Some(p.engine.image.clone()),
            host: p.host.clone(),
            accelerator: p.accelerator.name.clone(),
            accelerator_count: p.accelerator.count,
            parallelism: p.parallelism.clone(),
            launched_at: p.launched_at.clone(),
            // The predicate was validated, so the time parses.
            launched_unix: crate::timefmt::parse_rfc3339_utc(&p.launched_at).unwrap_or(f64::MAX),
        }
    }
}

/// Verifies a DSSE envelope under keys trusted for the `engine` role.
pub trait EngineAttestationVerifier {
    /// `Err` is an evidence failure (bad signature, untrusted key, a key
    /// restricted to other engines than `engine_id`, malformed envelope),
    /// explained for the report.
    fn verify_engine(
        &self,
        envelope: &[u8],
        origin: &str,
        engine_id: &str,
    ) -> Result<AttestedEngine, String>;

    /// v1.1: verifies a host launch-check report under keys trusted for
    /// the `host` role; `Err` explains why it does not count.
    fn verify_host_report(
        &self,
        envelope: &[u8],
    ) -> Result<crate::attest::Verified<crate::attest::Statement>, String>;
}

/// What the auditor brings.
#[derive(Default, Clone, Copy)]
pub struct Options<'a> {
    /// The published pins; `None` (and no publication) makes the verdict
    /// "unpinned".
    pub pins: Option<&'a Pins>,
    /// Trust roots for engine attestations; `None` fails the attestations.
    pub attestations: Option<&'a dyn EngineAttestationVerifier>,
    /// v1.1: the published write-up, checked row by row and cell by cell.
    pub publication: Option<&'a crate::publication::Publication>,
    /// Rows of the publication that no evidence supports fail instead of
    /// being reported as not checked.
    pub require_all_rows: bool,
}

impl Options<'_> {
    /// True when published pins are compared: a pins file, or a
    /// publication that states at least one digest or commit (v1.1: a
    /// write-up from which no pin could be taken leaves the verdict
    /// unpinned).
    pub fn pinned(&self) -> bool {
        self.pins.is_some()
            || self
                .publication
                .is_some_and(published::publication_has_pins)
    }

    /// Digests whose manifests under `manifests/` must be counted (the
    /// publication's manifest rows with a file count).
    pub fn counted_digests(&self) -> Vec<Sha256Digest> {
        self.publication
            .map(published::counted_digests)
            .unwrap_or_default()
    }
}

/// One row of the measured-points table, recomputed from the records.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PointRow {
    /// Point name.
    pub name: String,
    /// Offered rate as declared.
    pub offered_rate: f64,
    /// Send rate measured from the records (v1.1).
    pub measured_rate: Option<f64>,
    /// Declared measured requests.
    pub requests: u64,
    /// Recomputed metrics.
    pub metrics: PointMetrics,
    /// The series behind the metrics, for plots (not in the table's JSON).
    #[serde(skip)]
    pub series: metrics::PointSeries,
}

/// The outcome of verifying a run.
#[derive(Debug, Clone)]
pub struct Verification {
    /// Every check.
    pub report: Report,
    /// The recomputed table (points whose records could be read).
    pub rows: Vec<PointRow>,
    /// True when pins were given.
    pub pinned: bool,
    /// The qualification, when it parsed.
    pub qualification: Option<Qualification>,
    /// SHA-256 of the bundle bytes (bundles only).
    pub bundle_sha256: Option<Sha256Digest>,
    /// Digest of the bundle's MANIFEST (bundles only).
    pub manifest_digest: Option<Sha256Digest>,
    /// The bundle's top-level directory (bundles only).
    pub root: Option<String>,
    /// Only the bundle's structure (and seal) was verified.
    pub structure_only: bool,
    /// What became of the release seal.
    pub seal: verdict::SealState,
}

/// Parses `qualification.json` into the report (`qualification.schema`).
pub fn check_qualification(
    report: &mut Report,
    bytes: Result<&[u8], String>,
) -> Option<Qualification> {
    let id = "qualification.schema";
    match bytes.and_then(Qualification::parse) {
        Ok(q) => {
            report.push(Check::pass(
                id,
                format!(
                    "{QUALIFICATION_FILE}: {} points, {} engines, model {}",
                    q.points.len(),
                    q.engines.len(),
                    q.model
                ),
            ));
            Some(q)
        }
        Err(e) => {
            report.push(Check::fail(id, e));
            None
        }
    }
}

/// Why a file of the run cannot be used, if it cannot.
pub(crate) fn file_problem(
    rel: &str,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
) -> Option<String> {
    if let Some(why) = unusable.get(rel) {
        return Some(format!("{rel}: {why}"));
    }
    if let Some(why) = collected.too_large.get(rel) {
        return Some(format!("{rel}: {why}"));
    }
    None
}

/// Runs every check after the evidence pass: the benchmark plan,
/// attestations, pins, undeclared records, points. `bundle_digest` is the
/// SHA-256 of the .tgz when a bundle is verified.
pub fn evaluate(
    report: &mut Report,
    plan: &Plan,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
    bundle_digest: Option<Sha256Digest>,
    opts: &Options<'_>,
) -> Vec<PointRow> {
    let q = &plan.q;
    let arrival = plan_checks(report, plan, collected, unusable);
    let first_request = collected
        .clients
        .values()
        .filter_map(|c| c.first_sent)
        .reduce(f64::min);
    let attested = engines::check_engines(report, q, collected, unusable, first_request, opts);
    let facts = facts::resolve(q, collected, unusable);
    match opts.pins {
        None if opts.publication.is_some() => {}
        None => report.push(Check::skip(
            "pin:*",
            "no --pins given: published values not compared (verdict is unpinned)",
        )),
        Some(p) => pins::check_pins(
            report,
            p,
            q,
            collected,
            unusable,
            bundle_digest,
            &attested,
            &facts,
        ),
    }
    host_checks(report, q, collected, unusable, &attested, opts);
    report.push(undeclared_check(plan, collected));
    report.push(captured_check(collected));
    let mut rows = Vec::new();
    for (i, p) in q.points.iter().enumerate() {
        if let Some(m) = point::point_checks(report, q, i, collected, unusable, arrival) {
            rows.push(PointRow {
                name: p.name.clone(),
                offered_rate: p.offered_rate,
                measured_rate: m.measured_rate,
                requests: p.requests,
                metrics: m,
                series: collected
                    .clients
                    .get(&i)
                    .map(|c| c.series.clone())
                    .unwrap_or_default(),
            });
        }
    }
    if let Some(publication) = opts.publication {
        let ctx = published::Context {
            q,
            collected,
            unusable,
            attested: &attested,
            rows: &rows,
            facts: &facts,
            bundle_digest,
            require_all_rows: opts.require_all_rows,
        };
        published::check_publication(report, publication, &ctx);
    }
    rows
}

/// `qualification.plan`, `plan.points`, `plan.slo`. Returns the arrival
/// process the plan states (Poisson when it cannot be read).
fn plan_checks(
    report: &mut Report,
    plan: &Plan,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
) -> Arrival {
    let q = &plan.q;
    let id = "qualification.plan";
    let Some(path) = &plan.plan_file else {
        report.push(Check::fail(
            id,
            "qualification.json names no benchmark plan (\"plan\", v1.1): without it the request, warmup and rate counts are only the publisher's own declaration; name the plan the benchmark client ran, e.g. \"plan\": \"inputs/benchmark-plan.json\"",
        ));
        for n in ["plan.points", "plan.slo"] {
            report.push(Check::not_checkable(
                n,
                "no benchmark plan is named (see qualification.plan)",
            ));
        }
        return Arrival::Poisson;
    };
    let parsed = match (
        file_problem(path, collected, unusable),
        collected.small.get(path),
    ) {
        (Some(p), _) => Err(p),
        (None, None) => Err(format!("{path}: not in the run")),
        (None, Some(bytes)) => BenchmarkPlan::parse(bytes, path),
    };
    match parsed {
        Err(why) => {
            report.push(Check::fail(id, why));
            for n in ["plan.points", "plan.slo"] {
                report.push(Check::not_checkable(
                    n,
                    format!("the benchmark plan {path} cannot be read (see qualification.plan)"),
                ));
            }
            Arrival::Poisson
        }
        Ok(bp) => {
            report.push(Check::pass(
                id,
                format!(
                    "{path}: {} point(s), {} arrivals",
                    bp.points.len(),
                    bp.arrival.describe()
                ),
            ));
            report.push(plan::points_check(q, &bp, path));
            report.push(plan::slo_check(q, &bp, path));
            bp.arrival
        }
    }
}

/// The host launch-check reports a qualification lists (v1.1): every
/// engine's host (as its verified attestation names it) has exactly one
/// passing report, by a key trusted for `host`, for the attested weights
/// manifest and config, and no report is for another host.
fn host_checks(
    report: &mut Report,
    q: &Qualification,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    opts: &Options<'_>,
) {
    if q.host_checks.is_empty() {
        report.push(Check::skip(
            "host:*",
            "qualification.json lists no host launch-check reports (host_checks); no per-host check was verified",
        ));
        return;
    }
    let mut hosts: Vec<String> = Vec::new();
    let mut weights = None;
    let mut config = None;
    for e in &q.engines {
        match attested.get(&e.id) {
            Some(Ok(a)) => {
                if let Ok(f) = &a.predicate {
                    if !hosts.contains(&f.host) {
                        hosts.push(f.host.clone());
                    }
                }
                weights = weights.or(a
                    .subjects
                    .iter()
                    .find(|(n, _)| n == "weights.manifest")
                    .map(|(_, d)| *d));
                config = config.or(a
                    .subjects
                    .iter()
                    .find(|(n, _)| n == "config.json")
                    .map(|(_, d)| *d));
            }
            _ => {
                report.push(Check::not_checkable(
                    "host:*",
                    "not every engine attestation verified, so the engines' hosts and weights are not known (see attestation:*)",
                ));
                return;
            }
        }
    }
    let Some(weights) = weights else {
        report.push(Check::not_checkable(
            "host:*",
            "no engine attests weights.manifest",
        ));
        return;
    };
    let Some(verifier) = opts.attestations else {
        report.push(Check::not_checkable(
            "host:*",
            "no --trust given: a host report nobody trusts proves nothing",
        ));
        return;
    };
    let mut reports = Vec::new();
    for path in &q.host_checks {
        let verified = match (
            file_problem(path, collected, unusable),
            collected.small.get(path),
        ) {
            (Some(p), _) => Err(p),
            (None, None) => Err(format!("{path}: not in the run")),
            (None, Some(bytes)) => verifier.verify_host_report(bytes),
        };
        reports.push(crate::fleet::ReportIn {
            origin: path.clone(),
            bytes: collected.small.get(path).cloned().unwrap_or_default(),
            verified,
        });
    }
    let req = crate::fleet::FleetRequirements {
        weights,
        config,
        mode: crate::fleet::Mode::SizesOnly,
    };
    let (checks, _) = crate::fleet::verify_fleet(&hosts, reports, &req, "host");
    for c in checks {
        report.push(c);
    }
}

/// `run.limit:captured_bytes`: the files read whole stayed within their
/// limits (v1.1).
fn captured_check(collected: &Collected) -> Check {
    let id = "run.limit:captured_bytes";
    if collected.too_large.is_empty() {
        Check::pass(
            id,
            format!(
                "within the limit ({} bytes of attestations and plan read whole, of {}; each at most {})",
                collected.captured_bytes,
                evidence::MAX_CAPTURED_TOTAL,
                evidence::MAX_CAPTURED
            ),
        )
    } else {
        let names: Vec<String> = collected
            .too_large
            .iter()
            .take(10)
            .map(|(p, why)| format!("{p} ({why})"))
            .collect();
        Check::fail(
            id,
            format!(
                "{} file(s) not read: {}{}",
                collected.too_large.len(),
                names.join("; "),
                if collected.too_large.len() > 10 {
                    "; ..."
                } else {
                    ""
                }
            ),
        )
    }
}

/// `run.undeclared`: no client records or journal events outside the
/// declared points (v1.1).
fn undeclared_check(plan: &Plan, collected: &Collected) -> Check {
    let id = "run.undeclared";
    let mut found = records::Problems::default();
    for (path, point) in &collected.undeclared {
        found.push(format!(
            "{path} holds request records (its first names point {point:?}) but is no declared point's client records or journal"
        ));
    }
    let unnamed = collected.undeclared_files - collected.undeclared.len() as u64;
    if unnamed > 0 {
        found.push(format!("{unnamed} more such file(s)"));
    }
    for (path, j) in &collected.journals {
        for (point, (events, line)) in &j.undeclared {
            found.push(format!(
                "{path}: {events} event(s) of point {point:?} (the first at line {line}), which is not a declared point reading this journal"
            ));
        }
    }
    if found.is_empty() {
        Check::pass(
            id,
            format!(
                "every request record of the run belongs to one of the {} declared point(s)",
                plan.q.points.len()
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{} record(s) or file(s) of points that qualification.json does not declare: evidence left out of the table: {}",
                found.count,
                found.summary()
            ),
        )
    }
}

/// Verifies a run directory (no bundle: bundle checks are skipped and a
/// `bundle` pin fails).
pub fn verify_run_dir(root: &Path, opts: &Options<'_>) -> Result<Verification, QualifyError> {
    if !root.is_dir() {
        return Err(QualifyError::NotARun {
            path: root.to_path_buf(),
        });
    }
    let mut report = Report::new(root.display().to_string());
    report.push(Check::skip(
        "bundle",
        "verifying a run directory: there is no sealed bundle to check",
    ));
    let qbytes = match open_in_root(root, QUALIFICATION_FILE)? {
        Ok(f) => {
            use std::io::Read;
            let mut buf = Vec::new();
            f.take(schema::MAX_SMALL_FILE + 1)
                .read_to_end(&mut buf)
                .map_err(|source| evidence::RunDirError::Io {
                    path: root.join(QUALIFICATION_FILE),
                    source,
                })?;
            if buf.len() as u64 > schema::MAX_SMALL_FILE {
                Err(format!(
                    "{QUALIFICATION_FILE}: larger than {} bytes",
                    schema::MAX_SMALL_FILE
                ))
            } else {
                Ok(buf)
            }
        }
        Err(Unusable::Missing) => Err(format!("{QUALIFICATION_FILE}: not in the run directory")),
        Err(Unusable::NotRegular(why)) => Err(format!("{QUALIFICATION_FILE}: {why}")),
    };
    let q = check_qualification(&mut report, qbytes.as_deref().map_err(Clone::clone));
    let Some(q) = q else {
        unverifiable_rest(&mut report, opts);
        return Ok(Verification {
            report,
            rows: Vec::new(),
            pinned: opts.pinned(),
            qualification: None,
            bundle_sha256: None,
            manifest_digest: None,
            root: None,
            structure_only: false,
            seal: verdict::SealState::Absent,
        });
    };
    let plan = Plan::new(q, opts.pins, &opts.counted_digests());
    let mut collector = Collector::new(&plan);
    let scan = collect_run_dir(root, &mut collector)?;
    report.push(if scan.tree_problems.is_empty() {
        Check::pass(
            "run.tree",
            format!(
                "{} regular files, no symlinks, special files or hard links to outside",
                scan.files
            ),
        )
    } else {
        Check::fail(
            "run.tree",
            format!(
                "the run directory holds what a bundle cannot (seal refuses it too): {}",
                crate::manifest::describe_problems(&scan.tree_problems)
            ),
        )
    });
    let unusable: BTreeMap<String, String> = scan
        .unusable
        .into_iter()
        .map(|(k, v)| {
            let why = match v {
                Unusable::Missing => "not in the run".to_string(),
                Unusable::NotRegular(w) => w,
            };
            (k, why)
        })
        .collect();
    let collected = collector.out;
    let rows = evaluate(&mut report, &plan, &collected, &unusable, None, opts);
    Ok(Verification {
        report,
        rows,
        pinned: opts.pinned(),
        qualification: Some(plan.q),
        bundle_sha256: None,
        manifest_digest: None,
        root: None,
        structure_only: false,
        seal: verdict::SealState::Absent,
    })
}

/// Reports the checks that need a readable qualification as not checkable.
pub fn unverifiable_rest(report: &mut Report, opts: &Options<'_>) {
    match opts.pins {
        None => report.push(Check::skip(
            "pin:*",
            "no --pins given: published values not compared (verdict is unpinned)",
        )),
        Some(p) => {
            for pin in &p.pins {
                report.push(Check::not_checkable(
                    format!("pin:{}", pin.name),
                    "qualification.json is not valid",
                ));
            }
        }
    }
    report.push(Check::not_checkable(
        "attestation:*",
        "qualification.json is not valid: the engines are unknown",
    ));
    if opts.publication.is_some() {
        report.push(Check::not_checkable(
            "publication:*",
            "qualification.json is not valid: nothing in the run can be matched to the publication's rows",
        ));
    }
    report.push(Check::not_checkable(
        "point:*",
        "qualification.json is not valid: the points are unknown",
    ));
}
