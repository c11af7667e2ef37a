//! Engine attestation checks (spec section 6): for each engine of the
//! qualification, what its verified attestation must say, and that the
//! engines of one fleet attest the same inputs.

use std::collections::BTreeMap;

use serde_json::json;

use crate::attest::ENGINE_PREDICATE_TYPE;
use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use crate::run::qualification::Qualification;
use crate::run::records::ClientId;
use crate::verify::checks::attested::AttestedEngine;
use crate::verify::checks::options::Options;
use crate::verify::evidence::context::Run;

/// Verifies every engine's attestation and reports `attestation:<id>` with
/// its sub-checks, then `attestations.agree`.
pub fn check_engines(
    report: &mut Report,
    run: &Run<'_>,
    opts: &Options<'_>,
) -> BTreeMap<String, Result<AttestedEngine, String>> {
    let q = run.q();
    let requests = Requests::of(run);
    let mut attested = BTreeMap::new();
    for e in &q.engines {
        let id = format!("attestation:{}", e.id);
        let got: Result<AttestedEngine, String> =
            run.small_file(&e.attestation)
                .and_then(|bytes| match opts.attestations {
                    None => Err("no --trust given: a signature that nobody trusts proves nothing; pass the trust roots with --trust".into()),
                    Some(v) => v.verify_engine(bytes, &e.attestation, &e.id),
                });
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
        subchecks(report, q, &e.id, &got, &requests);
        attested.insert(e.id.clone(), got);
    }
    agreement_check(report, q, &attested);
    attested
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
    if let Some((engine, _)) = attested.iter().find(|(_, a)| a.is_err()) {
        report.push(Check::not_checkable_by(
            id,
            format!("attestation:{engine}"),
            format!("not every engine attestation verified (see attestation:{engine})"),
        ));
        return;
    }
    let required = q.all_required_subjects();
    let mut disagree = Vec::new();
    for subject in &required {
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
                required.join(", ")
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

fn subchecks(
    report: &mut Report,
    q: &Qualification,
    engine: &str,
    got: &Result<AttestedEngine, String>,
    requests: &Requests<'_>,
) {
    let base = format!("attestation:{engine}");
    let names = [
        "predicate_type",
        "subjects",
        "engine_id",
        "model",
        "image",
        "launched_at",
    ];
    let a = match got {
        Ok(a) => a,
        Err(_) => {
            for n in names {
                report.push(Check::not_checkable_by(
                    format!("{base}.{n}"),
                    &base,
                    format!("the attestation did not verify (see {base})"),
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
    let required = q.all_required_subjects();
    let missing: Vec<&String> = required
        .iter()
        .filter(|s| !a.subjects.iter().any(|(n, _)| n == *s))
        .collect();
    let have: Vec<&String> = a.subjects.iter().map(|(n, _)| n).collect();
    report.push(if missing.is_empty() {
        Check::pass(
            format!("{base}.subjects"),
            format!("carries every required subject ({})", required.join(", ")),
        )
    } else {
        Check::fail(
            format!("{base}.subjects"),
            format!(
                "missing required subject(s) {} (weights.manifest, config.json and engine-image are always required)",
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_values(json!(required), json!(have))
    });
    let f = match &a.predicate {
        Err(why) => {
            // The signed predicate itself is the failure: one cause, the
            // rest not checkable because of it.
            let cause = format!("{base}.engine_id");
            report.push(Check::fail(
                &cause,
                format!("the engine predicate cannot be read: {why}"),
            ));
            for n in ["model", "image", "launched_at"] {
                report.push(Check::not_checkable_by(
                    format!("{base}.{n}"),
                    &cause,
                    format!("the engine predicate cannot be read (see {cause})"),
                ));
            }
            return;
        }
        Ok(f) => f,
    };
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
        _ => Check::not_checkable_by(
            format!("{base}.image"),
            format!("{base}.subjects"),
            "predicate.engine.image and an engine-image subject are not both present",
        ),
    });
    report.push(launched_check(&base, f, requests));
}

/// Every client record the run holds, to date the engines' launches by:
/// the points' records as the evidence pass keeps them (no
/// list of every request is made, nor sorted), and the earliest send.
struct Requests<'a> {
    /// (point's client-records file, its records by request id).
    points: Vec<(&'a str, &'a crate::run::idmap::IdMap<ClientId>)>,
    /// How many records in all.
    count: usize,
    /// The earliest send time of any record.
    first: Option<f64>,
    /// The first point whose records cannot be read, when one cannot.
    unreadable: Option<String>,
}

impl<'a> Requests<'a> {
    fn of(run: &Run<'a>) -> Requests<'a> {
        let q = run.q();
        let mut points = Vec::new();
        let mut unreadable = None;
        for (i, p) in q.points.iter().enumerate() {
            match run.collected.clients.get(&i) {
                Some(c) => points.push((p.client_records.as_str(), &c.ids)),
                None => {
                    unreadable.get_or_insert_with(|| format!("point:{}.records", p.name));
                }
            }
        }
        let all = || points.iter().flat_map(|(_, ids)| ids.values());
        let count = all().count();
        let first = all().map(|r| r.sent_at).min_by(f64::total_cmp);
        Requests {
            points,
            count,
            first,
            unreadable,
        }
    }

    /// The records sent at or before `t`: how many, and the earliest
    /// [`crate::run::records::MAX_QUOTED`] of them (by send time, then file and
    /// line), in that order.
    fn sent_by(&self, t: f64) -> (u64, Vec<(f64, &'a str, u32, &'a str)>) {
        let keep = crate::run::records::MAX_QUOTED;
        let order = |a: &(f64, &str, u32, &str), b: &(f64, &str, u32, &str)| {
            a.0.total_cmp(&b.0).then(a.1.cmp(b.1)).then(a.2.cmp(&b.2))
        };
        let (mut n, mut first) = (0u64, Vec::new());
        for (file, ids) in &self.points {
            for (rid, r) in ids.iter().filter(|(_, r)| r.sent_at <= t) {
                n += 1;
                first.push((r.sent_at, *file, r.line, rid));
                if first.len() > 4 * keep {
                    first.sort_by(order);
                    first.truncate(keep);
                }
            }
        }
        first.sort_by(order);
        first.truncate(keep);
        (n, first)
    }
}

/// `attestation:<id>.launched_at`: every request of the run (every
/// client record, warmups included) was sent after the engine was
/// launched, so that it lies within the attested engine's lifetime; the
/// first requests sent before are named file:line.
fn launched_check(
    base: &str,
    f: &crate::verify::checks::attested::EngineFacts,
    requests: &Requests<'_>,
) -> Check {
    let id = format!("{base}.launched_at");
    let Some(first_at) = requests.first else {
        return match &requests.unreadable {
            Some(cause) => Check::not_checkable_by(
                &id,
                cause,
                format!("no client record could be read to date the run (see {cause})"),
            ),
            None => Check::not_checkable(&id, "no client record could be read to date the run"),
        };
    };
    let launched = f.launched_unix;
    let (n, quoted) = requests.sent_by(launched);
    let mut early = crate::run::records::Problems::default();
    for (at, file, line, rid) in quoted {
        early.push(format!("request {rid:?} ({file}:{line}) sent at {at:.6}"));
    }
    early.count = n;
    if early.is_empty() {
        Check::pass(
            &id,
            format!(
                "launched at {} ({:.0} s before the first request of the run): all {} requests lie within the engine's lifetime",
                f.launched_at,
                first_at - launched,
                requests.count
            ),
        )
        .with_values(json!({"before": first_at}), launched)
    } else {
        Check::fail(
            &id,
            format!(
                "launched at {}, {:.3} s after the first request of the run was sent: this attestation is not of the engine that served it; {} request(s) were sent before it was launched: {}",
                f.launched_at,
                launched - first_at,
                early.count,
                early.summary()
            ),
        )
        .with_values(json!({"before": first_at}), launched)
    }
}
