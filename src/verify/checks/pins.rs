//! Pin checks: the published values against the evidence (spec section 6).
//!
//! A pin is the auditor's copy of what was published; the run can only agree
//! with it. One check per pin (`pin:<name>`) combines every way the pin
//! applies (the bundle bytes, a file of the run, a subject of every engine
//! attestation, the file count of a manifest); a pin that applies to nothing
//! fails, because a published value that nothing supports is not verified.

use std::collections::BTreeMap;

use serde_json::json;

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use crate::run::qualification::Pins;
use crate::verify::checks::attested::AttestedEngine;
use crate::verify::checks::facts::Facts;
use crate::verify::evidence::chain::{self, Chain, Missing};
use crate::verify::evidence::context::Run;

/// Appends one `pin:<name>` check per pin.
pub fn check_pins(
    report: &mut Report,
    pins: &Pins,
    run: &Run<'_>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    facts: &Facts,
) {
    for pin in &pins.pins {
        match (&pin.sha256, &pin.value) {
            (Some(want), _) => report.push(digest_pin(pin, *want, run, attested, facts)),
            (None, Some(v)) => report.push(value_pin(&pin.name, v, run, facts)),
            (None, None) => report.push(Check::fail(
                format!("pin:{}", pin.name),
                "the pin has neither sha256 nor value",
            )),
        }
    }
}

/// A digest pin named `benchmark-plan` and given no `path`: the plan the
/// qualification names, as a publication's "Benchmark plan SHA-256" row is
/// checked. What it applies to, and why it fails (with the value found).
fn plan_pin(
    pin: &crate::run::qualification::Pin,
    want: Sha256Digest,
    run: &Run<'_>,
) -> Option<(String, Option<(String, serde_json::Value)>)> {
    if pin.name != "benchmark-plan" || pin.path.is_some() {
        return None;
    }
    let failed = match &run.q().plan {
        None => Some((
            "qualification.json names no benchmark plan".to_string(),
            serde_json::Value::Null,
        )),
        Some(plan) => match (run.unusable.get(plan), run.collected.hashes.get(plan)) {
            (None, Some(d)) if *d == want => None,
            (None, Some(d)) => Some((
                format!("{plan}: content differs from the pin"),
                json!(d.to_hex()),
            )),
            (Some(why), _) => Some((format!("{plan}: {why}"), serde_json::Value::Null)),
            (None, None) => Some((format!("{plan}: not in the run"), serde_json::Value::Null)),
        },
    };
    Some(("the benchmark plan".into(), failed))
}

/// A digest pin named as a file of the evidence chain (`workload`,
/// `qualified-fleet`, `profile-store`) and given no `path`: the file the
/// chain names, as a publication's row of that name is checked. What it
/// applies to, and why it fails (with the value found).
fn chain_pin(
    pin: &crate::run::qualification::Pin,
    want: Sha256Digest,
    run: &Run<'_>,
) -> Option<(String, Option<(String, serde_json::Value)>)> {
    let link = chain::link_named(&pin.name).filter(|_| pin.path.is_none())?;
    Some(match Chain::resolve(run).digest(run, link) {
        Ok((path, by, d)) => (
            format!("{path} (named by {by})"),
            (d != want).then(|| {
                (
                    format!("{path} (named by {by}): content differs from the pin"),
                    json!(d.to_hex()),
                )
            }),
        ),
        Err(Missing::NotNamed(why) | Missing::Unusable(why)) => (
            format!("the {} the run names", pin.name),
            Some((why, serde_json::Value::Null)),
        ),
    })
}

/// A value pin: the revision the benchmark plan states, for a pin named as
/// one (`...router-source`, `benchmark-client-source`: what `pins
/// from-publication` writes for a write-up's source rows); else the fact of
/// the pin's name holds the published value.
fn value_pin(name: &str, want: &serde_json::Value, run: &Run<'_>, facts: &Facts) -> Check {
    let id = format!("pin:{name}");
    let text = match want {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let (Some(which), None) = (chain::revision_named(name), facts.get(name)) {
        return match Chain::resolve(run).revision(which) {
            Err(Missing::NotNamed(why) | Missing::Unusable(why)) => Check::fail(
                id,
                format!("{why}: a published value that nothing in the run records is not verified"),
            )
            .with_values(want.clone(), serde_json::Value::Null),
            Ok((rev, by)) => Check::outcome(
                id,
                rev == text,
                if rev == text {
                    format!("{text} matches {by}")
                } else {
                    format!("{by} is {rev}, the pin says {text}")
                },
            )
            .with_values(want.clone(), rev),
        };
    }
    match facts.get(name) {
        None => Check::fail(
            id,
            format!("no fact named {name:?} in qualification.json: a published value that nothing in the run records is not verified"),
        )
        .with_values(want.clone(), serde_json::Value::Null),
        Some(Err(why)) => Check::fail(id, format!("fact {name:?} cannot be read: {why}")),
        Some(Ok(f)) => {
            let holds = f.equals_text(&text);
            Check::outcome(
                id,
                holds,
                if holds {
                    format!("{text} matches fact {name}")
                } else {
                    format!("fact {name} of the run is {}, the pin says {text}", f.describe())
                },
            )
            .with_values(want.clone(), f.describe())
        }
    }
}

fn digest_pin(
    pin: &crate::run::qualification::Pin,
    want: Sha256Digest,
    run: &Run<'_>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    facts: &Facts,
) -> Check {
    let (q, collected, unusable, bundle_digest) =
        (run.q(), run.collected, run.unusable, run.bundle_digest);
    {
        let id = format!("pin:{}", pin.name);
        let mut applied: Vec<String> = Vec::new();
        let mut failures: Vec<(String, serde_json::Value, serde_json::Value)> = Vec::new();
        let mut fail = |why: String, actual: serde_json::Value| {
            failures.push((why, json!(want.to_hex()), actual))
        };
        for (what, failed) in [plan_pin(pin, want, run), chain_pin(pin, want, run)]
            .into_iter()
            .flatten()
        {
            applied.push(what);
            if let Some((why, actual)) = failed {
                fail(why, actual);
            }
        }
        if let Some(f) = facts.get(&pin.name) {
            applied.push(format!("fact {}", pin.name));
            match f {
                Err(why) => fail(
                    format!("fact {} cannot be read: {why}", pin.name),
                    serde_json::Value::Null,
                ),
                Ok(v) => match v.as_digest() {
                    Some(d) if d == want => {}
                    Some(d) => fail(
                        format!("fact {} is {}", pin.name, d.prefixed()),
                        json!(d.to_hex()),
                    ),
                    None => fail(
                        format!("fact {} is {}, not a digest", pin.name, v.describe()),
                        serde_json::Value::Null,
                    ),
                },
            }
        }
        if pin.name == "bundle" {
            applied.push("the .tgz bytes".into());
            match bundle_digest {
                Some(d) if d == want => {}
                Some(d) => fail("the bundle's SHA-256 differs from the pin".into(), json!(d.to_hex())),
                None => fail(
                    "a run directory has no bundle bytes: the bundle pin is verified against the sealed .tgz".into(),
                    serde_json::Value::Null,
                ),
            }
        }
        if let Some(path) = &pin.path {
            applied.push(format!("file {path}"));
            match (unusable.get(path), collected.hashes.get(path)) {
                (None, Some(d)) if *d == want => {}
                (None, Some(d)) => fail(
                    format!("{path}: content differs from the pin"),
                    json!(d.to_hex()),
                ),
                (Some(why), _) => fail(format!("{path}: {why}"), serde_json::Value::Null),
                (None, None) => fail(format!("{path}: not in the run"), serde_json::Value::Null),
            }
        }
        let is_subject = q.all_required_subjects().contains(&pin.name)
            || attested.values().any(|a| {
                a.as_ref()
                    .is_ok_and(|a| a.subjects.iter().any(|(n, _)| *n == pin.name))
            });
        if is_subject {
            applied.push(format!(
                "subject {} of {} engine attestation(s)",
                pin.name,
                q.engines.len()
            ));
            let unverified: Vec<&str> = q
                .engines
                .iter()
                .filter(|e| !matches!(attested.get(&e.id), Some(Ok(_))))
                .map(|e| e.id.as_str())
                .collect();
            if !unverified.is_empty() {
                fail(
                    format!(
                        "not checkable: the attestation of {} did not verify",
                        unverified.join(", ")
                    ),
                    serde_json::Value::Null,
                );
            }
            for e in &q.engines {
                if let Some(Ok(a)) = attested.get(&e.id) {
                    match a.subjects.iter().find(|(n, _)| *n == pin.name) {
                        Some((_, d)) if *d == want => {}
                        Some((_, d)) => fail(
                            format!(
                                "engine {}: attested subject {} differs from the pin",
                                e.id, pin.name
                            ),
                            json!(d.to_hex()),
                        ),
                        None => fail(
                            format!("engine {}: attestation has no subject {}", e.id, pin.name),
                            serde_json::Value::Null,
                        ),
                    }
                }
            }
        }
        for (stated, what) in [(pin.files, "files"), (pin.shards, "safetensors shards")] {
            let Some(n) = stated else { continue };
            applied.push(format!("{n} {what}"));
            let found = collected
                .manifest_lines
                .iter()
                .find(|(_, c)| c.digest == want);
            match found {
                Some((path, c)) => {
                    let lists = if what == "files" { c.files } else { c.shards };
                    if lists != n {
                        failures.push((format!("{path}: lists {lists} {what}, the pin says {n}"), json!(n), json!(lists)));
                    }
                }
                None => failures.push((
                    format!("no file under manifests/ has the pinned digest {want}, so the count of {what} cannot be verified"),
                    json!(n),
                    serde_json::Value::Null,
                )),
            }
        }
        if applied.is_empty() {
            Check::fail(
                id,
                format!(
                    "pin {:?} applies to nothing in the run (not `bundle`, no `path`, not an attestation subject, not a fact, no `files`): a published value that nothing supports is not verified",
                    pin.name
                ),
            )
            .with_values(want.to_hex(), serde_json::Value::Null)
        } else if failures.is_empty() {
            Check::pass(id, format!("{} matches {}", want, applied.join(", ")))
        } else {
            let detail = failures
                .iter()
                .map(|(w, _, _)| w.as_str())
                .collect::<Vec<_>>()
                .join("; ");
            let (_, e, a) = failures.swap_remove(0);
            Check::fail(id, detail).with_values(e, a)
        }
    }
}
