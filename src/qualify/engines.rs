//! Engine attestation checks (spec section 6): for each engine of the
//! qualification, what its verified attestation must say, and that the
//! engines of one fleet attest the same inputs.

use std::collections::BTreeMap;

use serde_json::json;

use super::context::Run;
use super::schema::Qualification;
use super::{AttestedEngine, Options, ENGINE_PREDICATE_TYPE};
use crate::digest::Sha256Digest;
use crate::report::{Check, Report};

/// Verifies every engine's attestation and reports `attestation:<id>` with
/// its sub-checks, then `attestations.agree`. `first_request` is the
/// earliest send time of the run (warmups included), when known.
pub fn check_engines(
    report: &mut Report,
    run: &Run<'_>,
    first_request: Option<f64>,
    opts: &Options<'_>,
) -> BTreeMap<String, Result<AttestedEngine, String>> {
    let q = run.q();
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
        subchecks(report, q, &e.id, &got, first_request);
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
    if verified.len() < attested.len() {
        report.push(Check::not_checkable(
            id,
            "not every engine attestation verified",
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
    first_request: Option<f64>,
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
            for n in ["engine_id", "model", "image", "launched_at"] {
                report.push(Check::not_checkable(
                    format!("{base}.{n}"),
                    format!("engine predicate unreadable: {why}"),
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
        _ => Check::not_checkable(
            format!("{base}.image"),
            "predicate.engine.image and an engine-image subject are not both present",
        ),
    });
    let id = format!("{base}.launched_at");
    report.push(match (f.launched_unix, first_request) {
        (_, None) => Check::not_checkable(&id, "no client record could be read to date the run"),
        (launched, Some(first)) => Check::outcome(
            &id,
            launched < first,
            if launched < first {
                format!(
                    "launched at {} ({:.0} s before the first request of the run)",
                    f.launched_at,
                    first - launched
                )
            } else {
                format!(
                    "launched at {}, {:.3} s after the first request of the run was sent: this attestation is not of the engine that served it",
                    f.launched_at,
                    launched - first
                )
            },
        )
        .with_values(json!({"before": first}), launched),
    });
}
