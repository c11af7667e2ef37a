//! What a verification report carries besides its checks, so that
//! the HTML page can be drawn from the JSON report alone and the two can
//! never disagree: the context of the verification, the recomputed table,
//! the published inputs with their checks, and per point the latency
//! series, downsampled so that a run of 100,000 requests per point stays a
//! page of a few hundred KiB. Built here as the types of
//! [`crate::report::page`], which the report writes and the page reads.
//!
//! Downsampling: an empirical CDF of n values keeps at most
//! [`MAX_CDF_POINTS`] of them, at evenly spaced ranks (the smallest and the
//! largest always), each with its exact cumulative share; the timeline keeps
//! every failed, timed-out or cancelled request up to [`MAX_TIMELINE_POINTS`]
//! / 2 and an evenly strided sample of the ok ones for the rest. Both counts
//! are written next to the series, so the page says what it shows.

use crate::publication::Publication;
use crate::report::page::{
    Cdf, CdfPoint, Context, Marks, Metric, Page, Plot, Published, PublishedRow, RowCheck, Seal,
    Slo, Table, Timeline, TimelinePoint,
};
use crate::run::qualification::Pins;
use crate::verify::outcome::table;
use crate::verify::outcome::table::PointRow;
use crate::verify::verification::Verification;

/// Most points of one CDF.
pub const MAX_CDF_POINTS: usize = 1000;
pub use crate::run::metrics::MAX_TIMELINE_POINTS;

pub use crate::verify::inputs::PageContext;

fn cdf(sorted: &[f64]) -> Cdf {
    let n = sorted.len();
    let take = n.min(MAX_CDF_POINTS);
    let mut points = Vec::with_capacity(take);
    for i in 0..take {
        let rank = if take <= 1 {
            0
        } else {
            (i * (n - 1) + (take - 1) / 2) / (take - 1)
        };
        points.push(CdfPoint(sorted[rank], (rank + 1) as f64 / n as f64));
    }
    Cdf {
        n,
        points,
        shown: take,
    }
}

fn timeline(t: &crate::run::metrics::SampledTimeline) -> Timeline {
    let t0 = t.t0.unwrap_or(f64::INFINITY);
    let points: Vec<TimelinePoint> = t
        .points
        .iter()
        .map(|(at, ttft, st)| TimelinePoint(at - t0, *ttft, st.as_str().to_string()))
        .collect();
    Timeline {
        n: t.n,
        shown: points.len(),
        points,
        stride: t.stride,
        t0: t.t0,
    }
}

fn metric(sorted: &[f64], p: &[Option<f64>; 3]) -> Metric {
    Metric {
        cdf: cdf(sorted),
        marks: Marks {
            p50: p[0],
            p95: p[1],
            p99: p[2],
        },
    }
}

fn plots(rows: &[PointRow], v: &Verification) -> Vec<Plot> {
    let slo = v.qualification.as_ref().map(|q| Slo {
        tpot_ms: q.slo.tpot_s * 1000.0,
        ttft_s: q.slo.ttft_s,
    });
    rows.iter()
        .map(|r| Plot {
            point: r.name.clone(),
            slo,
            timeline: timeline(&r.timeline),
            tpot_ms: metric(&r.series.tpot_ms, &r.metrics.tpot_ms),
            ttft_s: metric(&r.series.ttft_s, &r.metrics.ttft_s),
        })
        .collect()
}

fn checks_of(v: &Verification, exact: &str, prefix: &str) -> Vec<RowCheck> {
    v.report
        .checks()
        .iter()
        .filter(|c| c.id == exact || c.id.starts_with(prefix))
        .map(|c| RowCheck {
            id: c.id.clone(),
            ok: c.ok(),
            source: c.source().map(str::to_string),
        })
        .collect()
}

fn published(
    v: &Verification,
    publication: Option<&Publication>,
    pins: Option<&Pins>,
) -> Option<Published> {
    if let Some(p) = publication {
        let rows = p
            .pinned
            .iter()
            .map(|r| {
                let id = format!("publication:pin:{}", r.slug);
                PublishedRow {
                    checks: checks_of(v, &id, &format!("{id}.")),
                    label: r.label.clone(),
                    line: Some(r.line),
                    value: r.value.clone(),
                }
            })
            .collect();
        return Some(Published {
            rows: Some(rows),
            source: p.origin.clone(),
            writeup: Some(crate::verify::outcome::writeup::writeup(&v.report, p)),
        });
    }
    let pins = pins?;
    let rows = pins
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
            PublishedRow {
                checks: checks_of(v, &id, &format!("{id}.")),
                label: pin.name.clone(),
                line: None,
                value,
            }
        })
        .collect();
    Some(Published {
        rows: Some(rows),
        source: "pins".to_string(),
        writeup: None,
    })
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
        publication_form: publication.map(|p| p.document.form.as_str().to_string()),
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
    v.report.set_page(Page {
        context: Some(context),
        table: Some(table),
        published: published(v, publication, pins),
        plots: Some(plots(&v.rows, v)),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_keeps_the_ends_and_at_most_the_cap() {
        let v: Vec<f64> = (0..100_000).map(|i| i as f64).collect();
        let c = cdf(&v);
        assert_eq!(c.points.len(), MAX_CDF_POINTS);
        assert_eq!(c.points[0].0, 0.0);
        assert_eq!(c.points[MAX_CDF_POINTS - 1], CdfPoint(99_999.0, 1.0));
        assert_eq!(cdf(&[2.0]).points, [CdfPoint(2.0, 1.0)]);
        assert_eq!(cdf(&[]).n, 0);
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
        assert_eq!(t.n, 10_000);
        assert!(t.points.len() <= MAX_TIMELINE_POINTS);
        assert!(t.points.iter().any(|p| p.2 == "error"));
    }
}
