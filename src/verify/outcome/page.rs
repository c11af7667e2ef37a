//! What a verification report carries besides its checks, so that
//! the HTML page can be drawn from the JSON report alone and the two can
//! never disagree: the context of the verification, the recomputed table,
//! the published inputs with their checks, and per point the latency
//! series, downsampled so that a run of 100,000 requests per point stays a
//! page of a few hundred KiB.
//!
//! Downsampling: an empirical CDF of n values keeps at most
//! [`MAX_CDF_POINTS`] of them, at evenly spaced ranks (the smallest and the
//! largest always), each with its exact cumulative share; the timeline keeps
//! every failed, timed-out or cancelled request up to [`MAX_TIMELINE_POINTS`]
//! / 2 and an evenly strided sample of the ok ones for the rest. Both counts
//! are written next to the series, so the page says what it shows.

use serde_json::{json, Value};

use crate::publication::Publication;
use crate::report::page::{Context, Page, Seal, Table};
use crate::run::qualification::Pins;
use crate::verify::outcome::table;
use crate::verify::outcome::table::PointRow;
use crate::verify::verification::Verification;

/// Most points of one CDF.
pub const MAX_CDF_POINTS: usize = 1000;
pub use crate::run::metrics::MAX_TIMELINE_POINTS;

pub use crate::verify::inputs::PageContext;

fn cdf(sorted: &[f64]) -> Value {
    let n = sorted.len();
    let take = n.min(MAX_CDF_POINTS);
    let mut pts = Vec::with_capacity(take);
    for i in 0..take {
        let rank = if take <= 1 {
            0
        } else {
            (i * (n - 1) + (take - 1) / 2) / (take - 1)
        };
        pts.push(json!([sorted[rank], (rank + 1) as f64 / n as f64]));
    }
    json!({"n": n, "shown": take, "points": pts})
}

fn timeline(t: &crate::run::metrics::SampledTimeline) -> Value {
    let t0 = t.t0.unwrap_or(f64::INFINITY);
    let pts: Vec<Value> = t
        .points
        .iter()
        .map(|(at, ttft, st)| json!([at - t0, ttft, st.as_str()]))
        .collect();
    json!({
        "n": t.n,
        "shown": pts.len(),
        "stride": t.stride,
        "t0": t.t0.map_or(Value::Null, |t0| json!(t0)),
        "points": pts
    })
}

fn plots(rows: &[PointRow], v: &Verification) -> Value {
    let slo = v.qualification.as_ref().map(|q| q.slo.clone());
    Value::Array(
        rows.iter()
            .map(|r| {
                let m = &r.metrics;
                json!({
                    "point": r.name,
                    "slo": slo.as_ref().map(|s| json!({"ttft_s": s.ttft_s, "tpot_ms": s.tpot_s * 1000.0})),
                    "ttft_s": {"cdf": cdf(&r.series.ttft_s), "marks": {"p50": m.ttft_s[0], "p95": m.ttft_s[1], "p99": m.ttft_s[2]}},
                    "tpot_ms": {"cdf": cdf(&r.series.tpot_ms), "marks": {"p50": m.tpot_ms[0], "p95": m.tpot_ms[1], "p99": m.tpot_ms[2]}},
                    "timeline": timeline(&r.timeline),
                })
            })
            .collect(),
    )
}

fn checks_of(v: &Verification, exact: &str, prefix: &str) -> Vec<Value> {
    v.report
        .checks()
        .iter()
        .filter(|c| c.id == exact || c.id.starts_with(prefix))
        .map(|c| match c.source() {
            Some(src) => json!({"id": c.id, "ok": c.ok(), "source": src}),
            None => json!({"id": c.id, "ok": c.ok()}),
        })
        .collect()
}

fn published(v: &Verification, publication: Option<&Publication>, pins: Option<&Pins>) -> Value {
    if let Some(p) = publication {
        let rows: Vec<Value> = p
            .pinned
            .iter()
            .map(|r| {
                let id = format!("publication:pin:{}", r.slug);
                json!({
                    "label": r.label, "value": r.value, "line": r.line,
                    "checks": checks_of(v, &id, &format!("{id}.")),
                })
            })
            .collect();
        return json!({"source": p.origin, "rows": rows, "writeup": crate::verify::outcome::writeup::writeup(&v.report, p)});
    }
    if let Some(pins) = pins {
        let rows: Vec<Value> = pins
            .pins
            .iter()
            .map(|pin| {
                let value = match (&pin.sha256, &pin.value) {
                    (Some(d), _) => d.prefixed(),
                    (None, Some(serde_json::Value::String(s))) => s.clone(),
                    (None, Some(other)) => other.to_string(),
                    (None, None) => String::new(),
                };
                let id = format!("pin:{}", pin.name);
                json!({"label": pin.name, "value": value, "line": null, "checks": checks_of(v, &id, &format!("{id}."))})
            })
            .collect();
        return json!({"source": "pins", "rows": rows});
    }
    Value::Null
}

/// Fills the report's page fields (`context`, `table`, `published`,
/// `plots`) from the verification.
pub fn enrich(
    v: &mut Verification,
    ctx: &PageContext,
    publication: Option<&Publication>,
    pins: Option<&Pins>,
) {
    let context = Context {
        bundle_sha256: v.bundle_sha256.map(|d| d.to_hex()),
        manifest_sha256: v.manifest_digest.map(|d| d.to_hex()),
        model: v.qualification.as_ref().map(|q| q.model.clone()),
        pinned: v.pinned,
        pins: ctx.pins.clone(),
        publication: ctx.publication.clone(),
        run: v
            .qualification
            .as_ref()
            .map(|q| q.name.clone())
            .or_else(|| v.root.clone()),
        seal: v.report.get("seal").map(|c| Seal {
            detail: c.detail.clone(),
            ok: c.ok(),
        }),
        structure_only: v.structure_only,
        target: v.report.target().to_string(),
        tool: crate::TOOL.to_string(),
        trust: ctx.trust.clone(),
        trust_sha256: ctx.trust_sha256.map(|d| d.to_hex()),
        verified_at: ctx.verified_at.clone(),
    };
    let table = Table {
        headers: table::HEADERS.iter().map(|h| h.to_string()).collect(),
        rows: v.rows.iter().map(table::cells).collect(),
    };
    let published = Some(published(v, publication, pins)).filter(|p| !p.is_null());
    let plots = plots(&v.rows, v);
    v.report.set_page(Page {
        context: Some(context),
        table: Some(table),
        published,
        plots: Some(plots),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_keeps_the_ends_and_at_most_the_cap() {
        let v: Vec<f64> = (0..100_000).map(|i| i as f64).collect();
        let c = cdf(&v);
        let pts = c["points"].as_array().unwrap();
        assert_eq!(pts.len(), MAX_CDF_POINTS);
        assert_eq!(pts[0][0], 0.0);
        assert_eq!(pts[MAX_CDF_POINTS - 1][0], 99_999.0);
        assert_eq!(pts[MAX_CDF_POINTS - 1][1], 1.0);
        assert_eq!(cdf(&[2.0])["points"][0], json!([2.0, 1.0]));
        assert_eq!(cdf(&[])["n"], 0);
    }

    #[test]
    fn timeline_keeps_failures() {
        use crate::run::qualification::Status;
        let mut s: Vec<(f64, Option<f64>, Status)> = (0..10_000)
            .map(|i| (i as f64, Some(1.0), Status::Ok))
            .collect();
        s[5].2 = Status::Error;
        s[5].1 = None;
        let t = timeline(&crate::run::metrics::sample_timeline(
            || s.iter().copied(),
            MAX_TIMELINE_POINTS,
        ));
        assert_eq!(t["n"], 10_000);
        let pts = t["points"].as_array().unwrap();
        assert!(pts.len() <= MAX_TIMELINE_POINTS);
        assert!(pts.iter().any(|p| p[2] == "error"));
    }
}
