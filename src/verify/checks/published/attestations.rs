//! Rows compared against the engines' verified attestations: one value per
//! engine (name, version, accelerator, model) or an attested subject's
//! digest; an engine whose attestation did not verify makes the row not
//! checkable.

use serde_json::json;

use crate::digest::Sha256Digest;
use crate::report::Check;
use crate::verify::checks::attested::{AttestedEngine, EngineFacts};
use crate::verify::checks::published::context::Context;

/// The verified attestations' facts, or why some engine's cannot be used.
pub(super) fn engines<'c>(
    ctx: &'c Context<'_>,
) -> Result<Vec<(&'c str, &'c AttestedEngine, &'c EngineFacts)>, String> {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for e in &ctx.q.engines {
        match ctx.attested.get(&e.id) {
            Some(Ok(a)) => match &a.predicate {
                Ok(f) => out.push((e.id.as_str(), a, f)),
                Err(_) => bad.push(e.id.as_str()),
            },
            _ => bad.push(e.id.as_str()),
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "the attestation of {} did not verify (see attestation:*)",
            bad.join(", ")
        ))
    }
}

/// Compares one value per engine; the detail names each disagreeing engine.
pub(super) fn per_engine(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    what: &str,
    published: &str,
    get: impl Fn(&EngineFacts) -> String,
    same: impl Fn(&str) -> bool,
) -> Check {
    match engines(ctx) {
        Err(why) => Check::not_checkable(id, format!("{at}: {why}")),
        Ok(list) => {
            let off: Vec<String> = list
                .iter()
                .filter(|(_, _, f)| !same(&get(f)))
                .map(|(e, _, f)| format!("{e} attests {}", get(f)))
                .collect();
            if off.is_empty() {
                Check::pass(
                    id,
                    format!(
                        "{at}: {what} {published} attested by all {} engines",
                        list.len()
                    ),
                )
            } else {
                Check::fail(
                    id,
                    format!("{at}: published {what} {published}, but {}", off.join("; ")),
                )
                .with_values(published, json!(off))
            }
        }
    }
}

/// Every engine's subject `name` is `want`.
pub(super) fn subject_check(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    name: &str,
    want: Sha256Digest,
) -> Check {
    match engines(ctx) {
        Err(why) => Check::not_checkable(id, format!("{at}: {why}")),
        Ok(list) => {
            let off: Vec<String> = list
                .iter()
                .filter_map(
                    |(e, a, _)| match a.subjects.iter().find(|(n, _)| n == name) {
                        Some((_, d)) if *d == want => None,
                        Some((_, d)) => Some(format!("{e} attests {name} {}", d.prefixed())),
                        None => Some(format!("{e} attests no {name}")),
                    },
                )
                .collect();
            if off.is_empty() {
                Check::pass(
                    id,
                    format!(
                        "{at}: {} is the {name} attested by all {} engines",
                        want.prefixed(),
                        list.len()
                    ),
                )
            } else {
                Check::fail(id, format!("{at}: {}", off.join("; ")))
                    .with_values(want.to_hex(), json!(off))
            }
        }
    }
}
