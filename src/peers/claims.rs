//! proofpack claims cross-checked against a peer result file (`results
//! check FILE --claims qualification.json --point NAME`): where a point's
//! published claims (section 6 of the contract) name a quantity the peer
//! file also measures, the claim must hold for the peer's value by the
//! claim rule (half a unit of the last published digit).
//!
//! Mapping: `ttft_s.pNN` against TTFT percentile NN in seconds,
//! `tpot_ms.pNN` against TPOT percentile NN in milliseconds (percentiles
//! recomputed from the arrays with numpy's linear rule, which is the
//! claim's; without arrays, the file's `pNN_*_ms` field, or its
//! `median_*_ms` for p50, which numpy computes differently and is said
//! so), `completed_rate` against `request_throughput` and
//! `output_throughput` against `output_throughput` (both per second of the
//! client's benchmark duration, which includes the drain as proofpack's
//! window does). `within_limits` has no counterpart.

use serde_json::json;

use super::results::ResultObject;
use super::serving::{Family, Recomputed};
use crate::report::Check;
use crate::run::qualification::{Claim, Point};

fn claim_check(id: String, claim: &Claim, value: f64, source: &str) -> Check {
    let ok = claim.holds(value);
    let detail = format!(
        "claim {} against {value} ({source}); holds within half a unit of its last digit",
        claim.text
    );
    let detail = if ok {
        detail
    } else {
        format!(
            "claim {} does not round from {value} ({source})",
            claim.text
        )
    };
    Check::outcome(id, ok, detail).with_values(json!(claim.text), json!(value))
}

fn percentile_value(
    obj: &ResultObject,
    rec: Option<&Recomputed>,
    fam: Family,
    metric: &str,
    p: f64,
) -> Result<(f64, String), String> {
    if let Some(r) = rec {
        if let Ok(s) = r.family(fam) {
            return Ok((
                s.percentile(p) * 1000.0,
                format!(
                    "np.percentile of {} values recomputed from the arrays, ms",
                    s.len()
                ),
            ));
        }
    }
    let key = format!("p{}_{metric}_ms", p as u32);
    if let Some(v) = obj.num(&key) {
        return Ok((v, format!("{key} as published, ms")));
    }
    if p == 50.0 {
        if let Some(v) = obj.num(&format!("median_{metric}_ms")) {
            return Ok((v, format!("median_{metric}_ms as published (np.median, not the linear 50th percentile), ms")));
        }
    }
    Err(format!(
        "the peer file has no {key} and no per-request arrays to recompute it"
    ))
}

/// Cross-checks `point`'s claims against one peer result object.
pub fn cross_check(point: &Point, obj: &ResultObject, rec: Option<&Recomputed>) -> Vec<Check> {
    let mut out = Vec::new();
    let base = format!("claims:{}", point.name);
    let c = &point.claims;
    for (metric, fam, claims, scale, unit) in [
        ("ttft", Family::Ttft, &c.ttft_s, 1.0 / 1000.0, "ttft_s"),
        ("tpot", Family::Tpot, &c.tpot_ms, 1.0, "tpot_ms"),
    ] {
        let Some(pc) = claims else { continue };
        for (k, p, claim) in pc.items() {
            let Some(claim) = claim else { continue };
            let id = format!("{base}.{unit}.{k}");
            match percentile_value(obj, rec, fam, metric, p) {
                Ok((ms, src)) => out.push(claim_check(id, claim, ms * scale, &src)),
                Err(why) => out.push(Check::skip(id, why)),
            }
        }
    }
    for (unit, key, claim) in [
        ("completed_rate", "request_throughput", &c.completed_rate),
        (
            "output_throughput",
            "output_throughput",
            &c.output_throughput,
        ),
    ] {
        let Some(claim) = claim else { continue };
        let id = format!("{base}.{unit}");
        match obj.num(key) {
            Some(v) => out.push(claim_check(
                id,
                claim,
                v,
                &format!("{key} of the peer file, per second of its duration"),
            )),
            None => out.push(Check::skip(id, format!("the peer file has no {key}"))),
        }
    }
    if c.within_limits.is_some() {
        out.push(Check::skip(
            format!("{base}.within_limits"),
            "within_limits is judged against the qualification's SLO per request; a peer result file does not record it",
        ));
    }
    if out.is_empty() {
        out.push(Check::fail(
            format!("{base}.claims"),
            "the point publishes no claim that the peer file measures",
        ));
    }
    out
}
