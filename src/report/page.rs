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
//! count is 0); one of another type is refused ([`PageError`], naming the
//! part). A number that is not finite is written as null, and a null
//! where a number belongs reads back as NaN, which the page does not draw.

use serde::de::DeserializeOwned;
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The page data of a report; a part is `None` when the report has none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// What was verified with what.
    pub context: Option<Context>,
    /// The recomputed measured-points table.
    pub table: Option<Table>,
    /// The published inputs with their checks, and the write-up's blocks.
    pub published: Option<Published>,
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
    /// The form the write-up was read in (`gfm` or `text`), when one was
    /// given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publication_form: Option<String>,
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

/// The published inputs, each with the checks that compared it with the
/// evidence, and with `--publication` the write-up itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Published {
    /// With `--publication` the write-up's pinned-inputs rows as written,
    /// else one row per pin (always written; a saved report without them
    /// has no pinned-inputs section on its page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<PublishedRow>>,
    /// Where they were published: the write-up's path, or `pins`.
    pub source: String,
    /// With `--publication`, the write-up's rendered blocks in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writeup: Option<Vec<Block>>,
}

/// A published input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PublishedRow {
    /// The checks about it, in report order.
    pub checks: Vec<RowCheck>,
    /// Its label (the write-up's) or the pin's name.
    pub label: String,
    /// The write-up's line it is on (none for a pin).
    pub line: Option<usize>,
    /// The published value, as written.
    pub value: String,
}

/// A check about a published input, and its outcome.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RowCheck {
    /// The check's id.
    pub id: String,
    /// Passed, failed, or not checked (`None`).
    pub ok: Option<bool>,
    /// `publisher` when the check compared the value only with a file
    /// the publisher wrote for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A rendered block of the write-up, written as an object whose `kind`
/// says which (`h`, `p`, `code`, `rule`, `table`), with `line`, the
/// write-up's line it starts on.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind")]
pub enum Block {
    /// A heading.
    #[serde(rename = "h")]
    Heading {
        /// 1 to 6.
        #[serde(default = "first_level")]
        level: u8,
        /// Its line.
        #[serde(default)]
        line: usize,
        /// Its text.
        #[serde(default)]
        segments: Vec<Segment>,
    },
    /// A paragraph.
    #[serde(rename = "p")]
    Paragraph {
        /// In a list item.
        #[serde(default)]
        item: bool,
        /// Its line.
        #[serde(default)]
        line: usize,
        /// In a block quote.
        #[serde(default)]
        quote: bool,
        /// Its text.
        #[serde(default)]
        segments: Vec<Segment>,
    },
    /// A code block, verbatim.
    #[serde(rename = "code")]
    Code {
        /// Its line.
        #[serde(default)]
        line: usize,
        /// Its text.
        #[serde(default)]
        segments: Vec<Segment>,
    },
    /// A thematic break.
    #[serde(rename = "rule")]
    Rule {
        /// Its line.
        #[serde(default)]
        line: usize,
        /// Its text (none).
        #[serde(default)]
        segments: Vec<Segment>,
    },
    /// A table.
    #[serde(rename = "table")]
    Table {
        /// For a table proofpack does not read, the check that says so.
        checks: Option<Vec<String>>,
        /// The header cells.
        #[serde(default)]
        header: Vec<Text>,
        /// Its line.
        #[serde(default)]
        line: usize,
        /// The outcome of `checks` (written with them only).
        ok: Option<bool>,
        /// The body's cells, row by row.
        #[serde(default)]
        rows: Vec<Vec<Segment>>,
    },
    /// A kind this reader does not know (never written).
    #[serde(other)]
    Unknown,
}

fn first_level() -> u8 {
    1
}

/// Written as the object the report has always held: its members in the
/// order of their names, `kind` among them.
impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            Block::Heading {
                level,
                line,
                segments,
            } => {
                m.serialize_entry("kind", "h")?;
                m.serialize_entry("level", level)?;
                m.serialize_entry("line", line)?;
                m.serialize_entry("segments", segments)?;
            }
            Block::Paragraph {
                item,
                line,
                quote,
                segments,
            } => {
                m.serialize_entry("item", item)?;
                m.serialize_entry("kind", "p")?;
                m.serialize_entry("line", line)?;
                m.serialize_entry("quote", quote)?;
                m.serialize_entry("segments", segments)?;
            }
            Block::Code { line, segments } | Block::Rule { line, segments } => {
                let kind = if matches!(self, Block::Code { .. }) {
                    "code"
                } else {
                    "rule"
                };
                m.serialize_entry("kind", kind)?;
                m.serialize_entry("line", line)?;
                m.serialize_entry("segments", segments)?;
            }
            Block::Table {
                checks,
                header,
                line,
                ok,
                rows,
            } => {
                if let Some(c) = checks {
                    m.serialize_entry("checks", c)?;
                }
                m.serialize_entry("header", header)?;
                m.serialize_entry("kind", "table")?;
                m.serialize_entry("line", line)?;
                if checks.is_some() {
                    m.serialize_entry("ok", ok)?;
                }
                m.serialize_entry("rows", rows)?;
            }
            Block::Unknown => {
                return Err(S::Error::custom("a block of an unknown kind"));
            }
        }
        m.end()
    }
}

/// A piece of the write-up's text: a statement or cell with the checks
/// about it, or text no check is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Segment {
    /// Checked (an object with `checks`).
    Marked(Mark),
    /// Not checked (`{"text"}` alone).
    Plain(Text),
}

/// A statement or cell and the checks about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    /// The ids of the checks about it.
    pub checks: Vec<String>,
    /// What the evidence gives, from each failed check (its `actual`),
    /// labelled with what it is (contract section 7).
    #[serde(default)]
    pub found: Vec<Value>,
    /// Any failed, `false`; all passed, `true`; else `None`.
    pub ok: Option<bool>,
    /// All passed, and one of them only by what the publisher wrote for it
    /// (a binding, or a file of its own): held by the publisher's word,
    /// not by evidence.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub publisher: bool,
    /// The text, as rendered.
    #[serde(default)]
    pub text: String,
    /// A cell of several numbers (a percentile list), number by number:
    /// each number marked with its own checks, the text between them
    /// plain; together they are `text`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Segment>,
}

/// Text, as rendered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Text {
    /// The text.
    pub text: String,
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
mod tests;
