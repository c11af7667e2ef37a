//! The page data: what a verification report carries besides its checks,
//! so that the HTML page can be drawn from the JSON report alone and the
//! two can never disagree (spec section 7: the `context`, `table`,
//! `published` and `plots` members).
//!
//! These types are the one description of that format: `verify` builds
//! them and the report writes them once, with its checks; `html` reads the
//! saved report back into the same types ([`Page::read`]) and draws from
//! their fields. Each type's fields are declared in the order the report
//! writes them (by name). A member a reader does not know is ignored; one
//! an older report lacks reads as its default, as the page has always read
//! it (an absent part is not drawn, an absent string is empty, an absent
//! count is 0).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The page data of a report; a part is `None` when the report has none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// What was verified with what.
    pub context: Option<Context>,
    /// The recomputed measured-points table.
    pub table: Option<Table>,
    /// The published inputs with their checks, and the write-up's blocks.
    pub published: Option<Value>,
    /// The latency series, per point.
    pub plots: Option<Vec<Plot>>,
}

/// A part of a saved report's page data that does not have its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{part}: {reason}")]
pub struct PageError {
    /// The report's member (`context`, `table`, `published`, `plots`).
    pub part: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl Page {
    /// The page data of a saved report (`proofpack/report/v1`): each part
    /// read into its type; an absent or null part is `None`.
    pub fn read(report: &Value) -> Result<Page, PageError> {
        fn part<T: DeserializeOwned>(
            report: &Value,
            key: &'static str,
        ) -> Result<Option<T>, PageError> {
            match report.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => T::deserialize(v).map(Some).map_err(|e| PageError {
                    part: key,
                    reason: e.to_string(),
                }),
            }
        }
        Ok(Page {
            context: part(report, "context")?,
            table: part(report, "table")?,
            published: part(report, "published")?,
            plots: part(report, "plots")?,
        })
    }
}

/// What was verified with what: the tool, the time, the digests of what
/// was read, the seal, and the files the auditor gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Context {
    /// SHA-256 (hex) of the bundle's bytes, when a bundle was verified.
    pub bundle_sha256: Option<String>,
    /// SHA-256 (hex) of the bundle's MANIFEST.
    pub manifest_sha256: Option<String>,
    /// The qualified model.
    pub model: Option<String>,
    /// Whether the verification compared the evidence with published pins.
    pub pinned: bool,
    /// The pins file's path, when one was given.
    pub pins: Option<String>,
    /// The write-up's path, when one was given.
    pub publication: Option<String>,
    /// The run's name.
    pub run: Option<String>,
    /// The outcome of the `seal` check, when there is one.
    pub seal: Option<Seal>,
    /// Whether only the bundle's structure and seal were verified.
    pub structure_only: bool,
    /// What was verified.
    pub target: String,
    /// The tool and its version.
    pub tool: String,
    /// The trust file's path, when one was given.
    pub trust: Option<String>,
    /// SHA-256 (hex) of the trust file, when one was given.
    pub trust_sha256: Option<String>,
    /// When the verification ran, RFC 3339 UTC.
    pub verified_at: String,
}

/// The recomputed measured-points table, as printed (`verify --table`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Table {
    /// The column headers, in the published order.
    pub headers: Vec<String>,
    /// The cells of each point's row, as text.
    pub rows: Vec<Vec<String>>,
}

/// The outcome of the release seal's check.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Seal {
    /// What the check found.
    pub detail: String,
    /// Passed, failed, or not checked (`None`).
    pub ok: Option<bool>,
}

/// The latency plots of one measured point: the TTFT and TPOT empirical
/// CDFs of its ok requests, and each request's TTFT over its time window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Plot {
    /// The point's name (`?` when a saved report names none).
    #[serde(default = "unnamed")]
    pub point: String,
    /// The budgets, when the run declares them.
    pub slo: Option<Slo>,
    /// TTFT of each request over the point's window, sampled.
    pub timeline: Timeline,
    /// Time per output token, milliseconds.
    pub tpot_ms: Metric,
    /// Time to first token, seconds.
    pub ttft_s: Metric,
}

fn unnamed() -> String {
    "?".to_string()
}

/// The SLO budgets a plot draws: NaN when a saved report gives none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    /// Largest acceptable time per output token, milliseconds.
    #[serde(default = "nan", deserialize_with = "number")]
    pub tpot_ms: f64,
    /// Largest acceptable time to first token, seconds.
    #[serde(default = "nan", deserialize_with = "number")]
    pub ttft_s: f64,
}

/// One metric of a point: its empirical CDF and percentiles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Metric {
    /// The CDF, downsampled.
    pub cdf: Cdf,
    /// The percentiles the plot marks.
    pub marks: Marks,
}

/// An empirical CDF: of `n` sorted values, `shown` kept at evenly spaced
/// ranks (the smallest and the largest always).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cdf {
    /// Values in all.
    pub n: usize,
    /// The values kept, ascending.
    pub points: Vec<CdfPoint>,
    /// Values kept.
    pub shown: usize,
}

/// A value of a CDF and the share of the values at or below it, written
/// as `[value, share]`; NaN where the report has null.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint(
    #[serde(deserialize_with = "number")] pub f64,
    #[serde(deserialize_with = "number")] pub f64,
);

/// The p50, p95 and p99 of a metric, when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Marks {
    /// Median.
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
}

/// The measured requests of a point over its window: every failed,
/// timed-out or cancelled one up to a cap, and every `stride`-th ok one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timeline {
    /// Measured requests of the point.
    pub n: usize,
    /// The requests shown.
    pub points: Vec<TimelinePoint>,
    /// Requests shown.
    pub shown: usize,
    /// Every `stride`-th ok request is shown.
    pub stride: usize,
    /// The earliest send time, when there is a request.
    pub t0: Option<f64>,
}

/// A request on the timeline, written as `[seconds since t0, TTFT or
/// null, status]`: its send time relative to the point's first (NaN where
/// the report has null), its TTFT when known, and its status (`ok`,
/// `error`, `timeout`, `cancelled`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint(
    #[serde(deserialize_with = "number")] pub f64,
    pub Option<f64>,
    pub String,
);

fn nan() -> f64 {
    f64::NAN
}

/// A number the report writes as null when it is not finite, read back
/// as NaN.
fn number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A part written as the report writes it: every object's members in
    /// the order of their names (what a `serde_json::Value` holds them in).
    fn written_in_name_order<T: Serialize>(part: &T) {
        let written = serde_json::to_string(part).unwrap();
        let sorted = serde_json::to_string(&serde_json::to_value(part).unwrap()).unwrap();
        assert_eq!(written, sorted);
    }

    fn context() -> Context {
        Context {
            bundle_sha256: Some("ab".into()),
            manifest_sha256: None,
            model: Some("m".into()),
            pinned: true,
            pins: None,
            publication: Some("W.md".into()),
            run: Some("r".into()),
            seal: Some(Seal {
                detail: "signed".into(),
                ok: None,
            }),
            structure_only: false,
            target: "b.tgz".into(),
            tool: "proofpack 0".into(),
            trust: Some("trust.json".into()),
            trust_sha256: Some("cd".into()),
            verified_at: "2026-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn the_context_is_written_in_name_order_and_read_back() {
        let c = context();
        written_in_name_order(&c);
        let report = json!({"context": c});
        assert_eq!(Page::read(&report).unwrap().context, Some(c));
    }

    #[test]
    fn the_table_is_written_in_name_order_and_read_back() {
        let t = Table {
            headers: vec!["Offered rate (req/s)".into(), "Result".into()],
            rows: vec![vec!["0.5".into(), "200/200 within limits".into()]],
        };
        written_in_name_order(&t);
        let report = json!({"table": t});
        assert_eq!(Page::read(&report).unwrap().table, Some(t));
        let page = Page::read(&json!({"table": {"rows": []}})).unwrap();
        assert_eq!(page.table, Some(Table::default()));
    }

    fn plot() -> Plot {
        let metric = Metric {
            cdf: Cdf {
                n: 3,
                points: vec![CdfPoint(0.25, 0.5), CdfPoint(0.5, 1.0)],
                shown: 2,
            },
            marks: Marks {
                p50: Some(0.25),
                p95: None,
                p99: Some(0.5),
            },
        };
        Plot {
            point: "p1".into(),
            slo: Some(Slo {
                tpot_ms: 300.0,
                ttft_s: 10.0,
            }),
            timeline: Timeline {
                n: 3,
                points: vec![
                    TimelinePoint(0.0, Some(1.5), "ok".into()),
                    TimelinePoint(2.0, None, "timeout".into()),
                ],
                shown: 2,
                stride: 1,
                t0: Some(1.0e9),
            },
            tpot_ms: metric.clone(),
            ttft_s: metric,
        }
    }

    #[test]
    fn the_plots_are_written_in_name_order_and_read_back() {
        let p = plot();
        written_in_name_order(&p);
        let report = json!({"plots": [p]});
        assert_eq!(Page::read(&report).unwrap().plots, Some(vec![plot()]));
    }

    /// A number that is not finite is written as null and read back as
    /// NaN; a point without a name reads as `?`, a plot without budgets
    /// has NaN ones.
    #[test]
    fn a_null_number_reads_as_nan() {
        let mut p = plot();
        p.timeline.points[0].0 = f64::INFINITY;
        p.ttft_s.cdf.points[1].1 = f64::NAN;
        p.slo = Some(Slo {
            tpot_ms: f64::NAN,
            ttft_s: 10.0,
        });
        let written = serde_json::to_value(&p).unwrap();
        assert_eq!(written["timeline"]["points"][0], json!([null, 1.5, "ok"]));
        assert_eq!(written["slo"], json!({"tpot_ms": null, "ttft_s": 10.0}));
        let read = &Page::read(&json!({ "plots": [written] }))
            .unwrap()
            .plots
            .unwrap()[0];
        assert!(read.timeline.points[0].0.is_nan());
        assert!(read.ttft_s.cdf.points[1].1.is_nan());
        assert!(read.slo.unwrap().tpot_ms.is_nan());
        let read = &Page::read(&json!({"plots": [{"slo": {}}]}))
            .unwrap()
            .plots
            .unwrap()[0];
        assert_eq!(read.point, "?");
        assert!(read.slo.unwrap().ttft_s.is_nan());
        assert_eq!(read.ttft_s, Metric::default());
    }

    /// A report without page data (an older one) has no parts; a part
    /// without a member reads it as its default; a member the reader does
    /// not know is ignored; a member of another type is refused, naming
    /// the part.
    #[test]
    fn absent_parts_and_members_read_as_before() {
        assert_eq!(Page::read(&json!({"checks": []})).unwrap(), Page::default());
        assert_eq!(
            Page::read(&json!({"context": null})).unwrap(),
            Page::default()
        );
        let page = Page::read(&json!({"context": {"seal": {}, "future": 1}})).unwrap();
        assert_eq!(
            page.context,
            Some(Context {
                seal: Some(Seal::default()),
                ..Context::default()
            })
        );
        let e = Page::read(&json!({"context": {"run": 5}})).unwrap_err();
        assert_eq!(e.part, "context");
        assert!(e.to_string().starts_with("context: invalid type"), "{e}");
    }
}
