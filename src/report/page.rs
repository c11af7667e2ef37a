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
use serde::{Deserialize, Serialize};
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
    pub plots: Option<Value>,
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
