//! Every table of the rendered write-up classified (closed world): the one
//! pinned-inputs table (header `Input | Value`), the measured-points tables
//! (any table whose header has a cell of the measured-points vocabulary,
//! wherever it stands and under whatever heading), and the rest, kept so
//! that they are reported as not checked. Also the bundle digest its prose
//! states.

use crate::digest::Sha256Digest;

use super::document::{Document, ProseKind, Table};
use super::grammar::{self, MEASURED_MARKERS};
use super::types::{PublicationError, UncheckedTable};
use super::values;

/// The tables of a write-up, by kind.
pub(super) struct Found<'d> {
    pub pinned: Option<&'d Table>,
    pub measured: Vec<&'d Table>,
    pub unchecked: Vec<UncheckedTable>,
}

fn is_pinned(t: &Table) -> bool {
    let h = |i: usize| t.header.get(i).map(|c| c.text.to_lowercase());
    h(0).as_deref() == Some("input") && h(1).as_deref() == Some("value")
}

/// A header cell that reads as a measured-points column, or starts with a
/// word only such a column starts with.
fn is_measured(t: &Table) -> bool {
    t.header.iter().any(|c| {
        let first = c
            .text
            .split(|ch: char| !ch.is_alphanumeric())
            .next()
            .unwrap_or("")
            .to_lowercase();
        MEASURED_MARKERS.contains(&first.as_str())
            || grammar::header(&c.text).is_ok_and(|h| h.kind != grammar::ColumnKind::Result)
    })
}

pub(super) fn classify<'d>(doc: &'d Document, origin: &str) -> Result<Found<'d>, PublicationError> {
    let mut found = Found {
        pinned: None,
        measured: Vec::new(),
        unchecked: Vec::new(),
    };
    for t in doc.tables() {
        if is_pinned(t) {
            if let Some(first) = found.pinned {
                return Err(PublicationError::Duplicate {
                    origin: origin.into(),
                    line: t.line,
                    first: first.line,
                });
            }
            found.pinned = Some(t);
        } else if is_measured(t) {
            found.measured.push(t);
        } else {
            found.unchecked.push(UncheckedTable {
                line: t.line,
                header: t.header.iter().map(|c| c.text.clone()).collect(),
                rows: t.rows.len(),
            });
        }
    }
    Ok(found)
}

/// The bundle digest stated in prose: a paragraph that mentions a bundle
/// and "SHA-256 <hex>".
pub(super) fn bundle_digest(
    doc: &Document,
    origin: &str,
) -> Result<Option<(Sha256Digest, usize)>, PublicationError> {
    let mut found: Option<(Sha256Digest, usize)> = None;
    for p in doc.prose().filter(|p| p.kind == ProseKind::Paragraph) {
        let lower = p.text.to_ascii_lowercase();
        if !lower.contains("bundle") {
            continue;
        }
        let Some(at) = lower.find("sha-256") else {
            continue;
        };
        let d = values::digests(&p.text[at..]);
        if let Some(d) = d.first() {
            match found {
                Some((prev, line)) if prev != *d => {
                    return Err(PublicationError::BadRow {
                        origin: origin.into(),
                        line: p.line,
                        label: "bundle".into(),
                        reason: format!(
                            "a second bundle SHA-256, other than the one at line {line}"
                        ),
                    })
                }
                Some(_) => {}
                None => found = Some((*d, p.line)),
            }
        }
    }
    Ok(found)
}
