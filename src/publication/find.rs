//! Finding what a write-up publishes: the "Pinned inputs" and "Measured
//! points" tables, by heading or else by header row (exactly one of each),
//! the rows with more cells than their header, and the bundle digest its
//! prose states.

use crate::digest::Sha256Digest;

use super::markdown::{Prose, RawTable};
use super::{values, PublicationError};

pub(super) const PINNED: &str = "Pinned inputs";
pub(super) const MEASURED: &str = "Measured points";

fn heading_is(t: &RawTable, name: &str) -> bool {
    t.heading.as_deref().is_some_and(|h| {
        h.trim()
            .trim_end_matches('¶')
            .trim()
            .eq_ignore_ascii_case(name)
    })
}

pub(super) fn header_has(t: &RawTable, word: &str) -> bool {
    t.header
        .iter()
        .any(|h| h.to_ascii_lowercase().contains(word))
}

/// The one table called `what`: by heading, else by header row.
pub(super) fn find<'t>(
    tables: &'t [RawTable],
    origin: &str,
    what: &'static str,
    by_header: impl Fn(&RawTable) -> bool,
    hint: &'static str,
) -> Result<&'t RawTable, PublicationError> {
    let mut by_heading = tables.iter().filter(|t| heading_is(t, what));
    let pick = match by_heading.next() {
        Some(first) => {
            if let Some(second) = by_heading.next() {
                return Err(PublicationError::Duplicate {
                    origin: origin.into(),
                    what,
                    line: second.line,
                    first: first.line,
                });
            }
            first
        }
        None => {
            let mut it = tables.iter().filter(|t| by_header(t));
            let first = it.next().ok_or(PublicationError::NoTable {
                origin: origin.into(),
                what,
                hint,
            })?;
            if let Some(second) = it.next() {
                return Err(PublicationError::Duplicate {
                    origin: origin.into(),
                    what,
                    line: second.line,
                    first: first.line,
                });
            }
            first
        }
    };
    Ok(pick)
}

/// A row with more cells than its header: the extra ones would be lost.
pub(super) fn overlong(
    t: &RawTable,
    origin: &str,
    what: &'static str,
) -> Result<(), PublicationError> {
    match t.overlong.first() {
        None => Ok(()),
        Some((line, n)) => Err(PublicationError::ExtraCells {
            origin: origin.into(),
            what,
            line: *line,
            cells: *n,
            header: t.header.clone(),
        }),
    }
}

/// The bundle digest stated in prose: a paragraph that mentions a bundle
/// and "SHA-256 <hex>".
pub(super) fn bundle_digest(
    prose: &[Prose],
    origin: &str,
) -> Result<Option<(Sha256Digest, usize)>, PublicationError> {
    let mut found: Option<(Sha256Digest, usize)> = None;
    for p in prose {
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
