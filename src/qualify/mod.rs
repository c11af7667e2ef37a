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
pub mod evidence;
pub mod metrics;
pub mod pins;
pub mod records;
pub mod schema;
pub mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use evidence::{collect_run_dir, open_in_root, Collected, Collector, Plan, Unusable};
use metrics::PointMetrics;
use schema::{Claim, Pins, Qualification, Status};

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
    /// `predicate.model`.
    pub model: String,
    /// `predicate.engine.image` (`sha256:<hex>`).
    pub image: Option<String>,
}

/// Verifies a DSSE envelope under keys trusted for the `engine` role.
pub trait EngineAttestationVerifier {
    /// `Err` is an evidence failure (bad signature, untrusted key,
    /// malformed envelope), explained for the report.
    fn verify_engine(&self, envelope: &[u8], origin: &str) -> Result<AttestedEngine, String>;
}

/// What the auditor brings.
#[derive(Default, Clone, Copy)]
pub struct Options<'a> {
    /// The published pins; `None` makes the verdict "unpinned".
    pub pins: Option<&'a Pins>,
    /// Trust roots for engine attestations; `None` fails the attestations.
    pub attestations: Option<&'a dyn EngineAttestationVerifier>,
}

/// One row of the measured-points table, recomputed from the records.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PointRow {
    /// Point name.
    pub name: String,
    /// Offered rate as declared.
    pub offered_rate: f64,
    /// Declared measured requests.
    pub requests: u64,
    /// Recomputed metrics.
    pub metrics: PointMetrics,
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
fn file_problem(
    rel: &str,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
) -> Option<String> {
    if let Some(why) = unusable.get(rel) {
        return Some(format!("{rel}: {why}"));
    }
    if collected.too_large.contains(rel) {
        return Some(format!(
            "{rel}: larger than {} bytes",
            evidence::MAX_CAPTURED
        ));
    }
    None
}

/// Runs every check after the evidence pass: attestations, pins, points.
/// `bundle_digest` is the SHA-256 of the .tgz when a bundle is verified.
pub fn evaluate(
    report: &mut Report,
    plan: &Plan,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
    bundle_digest: Option<Sha256Digest>,
    opts: &Options<'_>,
) -> Vec<PointRow> {
    let q = &plan.q;
    // Engine attestations.
    let mut attested: BTreeMap<String, Result<AttestedEngine, String>> = BTreeMap::new();
    for e in &q.engines {
        let id = format!("attestation:{}", e.id);
        let got: Result<AttestedEngine, String> = if let Some(p) =
            file_problem(&e.attestation, collected, unusable)
        {
            Err(p)
        } else if let Some(bytes) = collected.small.get(&e.attestation) {
            match opts.attestations {
                None => Err("no --trust given: a signature that nobody trusts proves nothing; pass the trust roots with --trust".into()),
                Some(v) => v.verify_engine(bytes, &e.attestation),
            }
        } else {
            Err(format!("{}: not in the run", e.attestation))
        };
        match &got {
            Ok(a) => report.push(Check::pass(
                &id,
                format!(
                    "{}: signed by trusted engine key {}",
                    e.attestation,
                    a.signers.join(", ")
                ),
            )),
            Err(why) => report.push(Check::fail(&id, format!("{}: {why}", e.attestation))),
        }
        attestation_subchecks(report, q, &e.id, &got);
        attested.insert(e.id.clone(), got);
    }
    agreement_check(report, q, &attested);
    // Pins.
    match opts.pins {
        None => report.push(Check::skip(
            "pin:*",
            "no --pins given: published values not compared (verdict is unpinned)",
        )),
        Some(p) => pins::check_pins(report, p, q, collected, unusable, bundle_digest, &attested),
    }
    // Points.
    let mut rows = Vec::new();
    for (i, p) in q.points.iter().enumerate() {
        if let Some(m) = point_checks(report, q, i, collected, unusable) {
            rows.push(PointRow {
                name: p.name.clone(),
                offered_rate: p.offered_rate,
                requests: p.requests,
                metrics: m,
            });
        }
    }
    rows
}

/// The engines of one fleet must have run the same thing: every required
/// subject carries one digest across all verified attestations. (With pins,
/// each is also compared with the published value; without pins this is
/// what keeps an unpinned verdict internally consistent.)
fn agreement_check(
    report: &mut Report,
    q: &Qualification,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
) {
    let id = "attestations.agree";
    let verified: Vec<(&String, &AttestedEngine)> = attested
        .iter()
        .filter_map(|(e, a)| a.as_ref().ok().map(|a| (e, a)))
        .collect();
    if verified.len() < attested.len() {
        report.push(Check::not_checkable(
            id,
            "not every engine attestation verified",
        ));
        return;
    }
    let mut disagree = Vec::new();
    for subject in &q.required_subjects {
        let mut seen: BTreeMap<Sha256Digest, Vec<&str>> = BTreeMap::new();
        for (engine, a) in &verified {
            if let Some((_, d)) = a.subjects.iter().find(|(n, _)| n == subject) {
                seen.entry(*d).or_default().push(engine.as_str());
            }
        }
        if seen.len() > 1 {
            let parts: Vec<String> = seen
                .iter()
                .map(|(d, es)| format!("{} by {}", d, es.join(", ")))
                .collect();
            disagree.push(format!("{subject}: {}", parts.join(" vs ")));
        }
    }
    report.push(if disagree.is_empty() {
        Check::pass(
            id,
            format!(
                "all {} engines attest the same {}",
                verified.len(),
                q.required_subjects.join(", ")
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "the engines attest different inputs: {}",
                disagree.join("; ")
            ),
        )
    });
}

fn attestation_subchecks(
    report: &mut Report,
    q: &Qualification,
    engine: &str,
    got: &Result<AttestedEngine, String>,
) {
    let base = format!("attestation:{engine}");
    let names = ["predicate_type", "subjects", "engine_id", "model", "image"];
    let a = match got {
        Ok(a) => a,
        Err(_) => {
            for n in names {
                report.push(Check::not_checkable(
                    format!("{base}.{n}"),
                    "the attestation did not verify",
                ));
            }
            return;
        }
    };
    report.push(
        Check::outcome(
            format!("{base}.predicate_type"),
            a.predicate_type == ENGINE_PREDICATE_TYPE,
            "predicateType is the engine attestation type",
        )
        .with_values(ENGINE_PREDICATE_TYPE, a.predicate_type.clone()),
    );
    let missing: Vec<&String> = q
        .required_subjects
        .iter()
        .filter(|s| !a.subjects.iter().any(|(n, _)| n == *s))
        .collect();
    let have: Vec<&String> = a.subjects.iter().map(|(n, _)| n).collect();
    report.push(if missing.is_empty() {
        Check::pass(
            format!("{base}.subjects"),
            format!(
                "carries every required subject ({})",
                q.required_subjects.join(", ")
            ),
        )
    } else {
        Check::fail(
            format!("{base}.subjects"),
            format!(
                "missing required subject(s) {}",
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_values(json!(q.required_subjects), json!(have))
    });
    match &a.predicate {
        Err(why) => {
            for n in ["engine_id", "model", "image"] {
                report.push(Check::not_checkable(
                    format!("{base}.{n}"),
                    format!("engine predicate unreadable: {why}"),
                ));
            }
        }
        Ok(f) => {
            report.push(
                Check::outcome(
                    format!("{base}.engine_id"),
                    f.id == engine,
                    "predicate.engine.id equals the listed engine id",
                )
                .with_values(engine, f.id.clone()),
            );
            report.push(
                Check::outcome(
                    format!("{base}.model"),
                    f.model == q.model,
                    "predicate.model equals the qualification's model",
                )
                .with_values(q.model.clone(), f.model.clone()),
            );
            let subj = a
                .subjects
                .iter()
                .find(|(n, _)| n == "engine-image")
                .map(|(_, d)| d.prefixed());
            report.push(match (&f.image, subj) {
                (Some(img), Some(s)) => Check::outcome(
                    format!("{base}.image"),
                    img.eq_ignore_ascii_case(&s),
                    "predicate.engine.image equals the engine-image subject",
                )
                .with_values(s, img.clone()),
                _ => Check::skip(
                    format!("{base}.image"),
                    "predicate.engine.image and an engine-image subject are not both present; not compared",
                ),
            });
        }
    }
}

/// The predicate type of engine attestations (spec section 4).
pub const ENGINE_PREDICATE_TYPE: &str = "urn:proofpack:predicate:engine:v1";

fn point_checks(
    report: &mut Report,
    q: &Qualification,
    i: usize,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
) -> Option<PointMetrics> {
    let p = &q.points[i];
    let base = format!("point:{}", p.name);
    let id = |s: &str| format!("{base}.{s}");
    const AFTER_RECORDS: [&str; 6] = [
        "count",
        "warmup",
        "unique_ids",
        "journal.terminal",
        "journal.orphans",
        "status",
    ];
    let client = match (
        file_problem(&p.client_records, collected, unusable),
        collected.clients.get(&i),
    ) {
        (None, Some(c)) => c,
        (problem, _) => {
            let why = problem.unwrap_or_else(|| format!("{}: not in the run", p.client_records));
            report.push(Check::fail(id("records"), why));
            for n in AFTER_RECORDS {
                report.push(Check::not_checkable(
                    id(n),
                    "the client records could not be read",
                ));
            }
            claim_checks_unavailable(report, &base, p);
            return None;
        }
    };
    report.push(if client.problems.is_empty() {
        Check::pass(
            id("records"),
            format!(
                "{}: {} records, all well-formed",
                p.client_records, client.records
            ),
        )
    } else {
        Check::fail(
            id("records"),
            format!(
                "{}: {} malformed record(s): {}",
                p.client_records,
                client.problems.count,
                client.problems.summary()
            ),
        )
    });
    let want = p.requests + p.warmup;
    report.push(
        Check::outcome(
            id("count"),
            client.records == want,
            format!(
                "{}: requests + warmup = {} + {} client records",
                p.client_records, p.requests, p.warmup
            ),
        )
        .with_values(want, client.records),
    );
    report.push(
        Check::outcome(
            id("warmup"),
            client.warmups == p.warmup,
            format!("{}: records marked warmup", p.client_records),
        )
        .with_values(p.warmup, client.warmups),
    );
    report.push(if client.duplicates.is_empty() {
        Check::pass(
            id("unique_ids"),
            format!(
                "{}: {} distinct request ids",
                p.client_records,
                client.ids.len()
            ),
        )
    } else {
        Check::fail(
            id("unique_ids"),
            format!("duplicate {}", client.duplicates.summary()),
        )
        .with_values(client.records, client.ids.len() as u64)
    });
    // Journal join.
    match (
        file_problem(&p.journal, collected, unusable),
        collected.journals.get(&p.journal),
    ) {
        (None, Some(j)) => {
            let empty = Default::default();
            let events = j.points.get(&p.name).unwrap_or(&empty);
            let mut terminal = records::Problems::default();
            let mut status = records::Problems::default();
            let mut ids: Vec<(&String, &records::ClientId)> = client.ids.iter().collect();
            ids.sort_by_key(|(_, c)| c.line);
            for (rid, c) in ids {
                match events.get(rid) {
                    None => terminal.push(format!(
                        "request {rid:?} ({}:{}) has no terminal event",
                        p.client_records, c.line
                    )),
                    Some(t) if t.count == 0 => terminal.push(format!(
                        "request {rid:?} ({}:{}) has no terminal event in {}",
                        p.client_records, c.line, p.journal
                    )),
                    Some(t) if t.count > 1 => terminal.push(format!(
                        "request {rid:?} has {} terminal events ({}:{} and line {})",
                        t.count, p.journal, t.lines[0], t.lines[1]
                    )),
                    Some(t) => {
                        if t.status != Some(c.status) {
                            status.push(format!(
                                "request {rid:?}: client status {} ({}:{}), terminal status {} ({}:{})",
                                c.status.as_str(),
                                p.client_records,
                                c.line,
                                t.status.map_or("none", Status::as_str),
                                p.journal,
                                t.lines[0]
                            ));
                        }
                    }
                }
            }
            let mut orphans = records::Problems::default();
            let mut orphan_list: Vec<(&String, u64)> = events
                .iter()
                .filter(|(rid, _)| !client.ids.contains_key(*rid))
                .map(|(r, t)| (r, t.lines[0]))
                .collect();
            orphan_list.sort_by_key(|(_, l)| *l);
            for (rid, line) in orphan_list {
                orphans.push(format!(
                    "request {rid:?} ({}:{line}) has no client record",
                    p.journal
                ));
            }
            let jprob = if j.problems.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} has {} malformed line(s): {})",
                    p.journal,
                    j.problems.count,
                    j.problems.summary()
                )
            };
            report.push(if terminal.is_empty() && j.problems.is_empty() {
                Check::pass(
                    id("journal.terminal"),
                    format!("{}: exactly one terminal event per request", p.journal),
                )
            } else if terminal.is_empty() {
                Check::fail(id("journal.terminal"), format!("journal malformed{jprob}"))
            } else {
                Check::fail(
                    id("journal.terminal"),
                    format!(
                        "{} request(s) without exactly one terminal event: {}{jprob}",
                        terminal.count,
                        terminal.summary()
                    ),
                )
                .with_values(1, terminal.count)
            });
            report.push(if orphans.is_empty() {
                Check::pass(
                    id("journal.orphans"),
                    format!(
                        "{}: every event of the point has a client record",
                        p.journal
                    ),
                )
            } else {
                Check::fail(
                    id("journal.orphans"),
                    format!(
                        "{} journal request id(s) without a client record: {}",
                        orphans.count,
                        orphans.summary()
                    ),
                )
            });
            report.push(if status.is_empty() {
                Check::pass(
                    id("status"),
                    "every terminal status equals the client status",
                )
            } else {
                Check::fail(
                    id("status"),
                    format!("{} status mismatch(es): {}", status.count, status.summary()),
                )
            });
        }
        (problem, _) => {
            let why = problem.unwrap_or_else(|| format!("{}: not in the run", p.journal));
            report.push(Check::fail(id("journal.terminal"), why.clone()));
            report.push(Check::not_checkable(id("journal.orphans"), &why));
            report.push(Check::not_checkable(id("status"), &why));
        }
    }
    let m = &client.metrics;
    claim_checks(report, &base, q, p, m, &client.breaches);
    Some(m.clone())
}

fn claim_checks_unavailable(report: &mut Report, base: &str, p: &schema::Point) {
    for (key, _) in claim_keys(&p.claims) {
        report.push(Check::not_checkable(
            format!("{base}.claim.{key}"),
            "the client records could not be read",
        ));
    }
    report.push(Check::not_checkable(
        format!("{base}.within_limits"),
        "the client records could not be read",
    ));
    report.push(Check::not_checkable(
        format!("{base}.attainment"),
        "the client records could not be read",
    ));
}

/// Every claim key in report order, with the claim if published.
fn claim_keys(c: &schema::Claims) -> Vec<(String, Option<&Claim>)> {
    let mut v = vec![
        ("completed_rate".to_string(), c.completed_rate.as_ref()),
        (
            "output_throughput".to_string(),
            c.output_throughput.as_ref(),
        ),
    ];
    for (group, pc) in [
        ("ttft_s", c.ttft_s.as_ref()),
        ("tpot_ms", c.tpot_ms.as_ref()),
    ] {
        v.push((format!("{group}.p50"), pc.and_then(|x| x.p50.as_ref())));
        v.push((format!("{group}.p95"), pc.and_then(|x| x.p95.as_ref())));
        v.push((format!("{group}.p99"), pc.and_then(|x| x.p99.as_ref())));
    }
    v
}

/// The recomputed value for a claim key, and its unit for messages.
fn recomputed(m: &PointMetrics, key: &str) -> (Option<f64>, &'static str) {
    match key {
        "completed_rate" => (m.completed_rate, "requests/s"),
        "output_throughput" => (m.output_throughput, "tokens/s"),
        "ttft_s.p50" => (m.ttft_s[0], "s"),
        "ttft_s.p95" => (m.ttft_s[1], "s"),
        "ttft_s.p99" => (m.ttft_s[2], "s"),
        "tpot_ms.p50" => (m.tpot_ms[0], "ms"),
        "tpot_ms.p95" => (m.tpot_ms[1], "ms"),
        "tpot_ms.p99" => (m.tpot_ms[2], "ms"),
        _ => (None, ""),
    }
}

fn claim_checks(
    report: &mut Report,
    base: &str,
    q: &Qualification,
    p: &schema::Point,
    m: &PointMetrics,
    breaches: &records::Problems,
) {
    for (key, claim) in claim_keys(&p.claims) {
        let id = format!("{base}.claim.{key}");
        let Some(claim) = claim else {
            report.push(Check::skip(
                id,
                "not claimed in qualification.json; not checked",
            ));
            continue;
        };
        let (value, unit) = recomputed(m, &key);
        report.push(match value {
            None => Check::fail(
                id,
                "no data: no ok requests (or no time window) to recompute this value from",
            )
            .with_values(claim.text.clone(), serde_json::Value::Null),
            Some(v) => {
                let holds = claim.holds(v);
                let detail = format!(
                    "recomputed {v:.6} {unit} {} published {} (tolerance {})",
                    if holds {
                        "rounds to"
                    } else {
                        "does not round to"
                    },
                    claim.text,
                    format_tolerance(claim.decimals)
                );
                Check::outcome(id, holds, detail).with_values(claim.text.clone(), v)
            }
        });
    }
    let slo = &q.slo;
    let rule = format!(
        "non-warmup ok requests with TTFT <= {} s and TPOT <= {} s (TTFT alone when output_tokens <= 1)",
        slo.ttft_s, slo.tpot_s
    );
    let outside = if breaches.is_empty() {
        String::new()
    } else {
        format!("; outside the SLO: {}", breaches.summary())
    };
    report.push(match p.claims.within_limits {
        None => Check::skip(
            format!("{base}.within_limits"),
            "within_limits not claimed; not checked",
        ),
        Some(n) => Check::outcome(
            format!("{base}.within_limits"),
            m.within_limits == n,
            format!("{} of {} {rule}{outside}", m.within_limits, p.requests),
        )
        .with_values(n, m.within_limits),
    });
    let share = m.within_limits as f64 / p.requests as f64;
    report.push(
        Check::outcome(
            format!("{base}.attainment"),
            share >= slo.attainment,
            format!(
                "{} / {} = {share:.4} within limits, SLO attainment {}",
                m.within_limits, p.requests, slo.attainment
            ),
        )
        .with_values(json!({"min": slo.attainment}), share),
    );
}

fn format_tolerance(decimals: u32) -> String {
    format!("±{}", 0.5 * 10f64.powi(-(decimals as i32)))
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
            pinned: opts.pins.is_some(),
            qualification: None,
            bundle_sha256: None,
            manifest_digest: None,
            root: None,
        });
    };
    let plan = Plan::new(q, opts.pins);
    let mut collector = Collector::new(&plan);
    let unusable = collect_run_dir(root, &mut collector)?;
    let unusable: BTreeMap<String, String> = unusable
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
        pinned: opts.pins.is_some(),
        qualification: Some(plan.q),
        bundle_sha256: None,
        manifest_digest: None,
        root: None,
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
    report.push(Check::not_checkable(
        "point:*",
        "qualification.json is not valid: the points are unknown",
    ));
}
