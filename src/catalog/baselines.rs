//! Baselines: manifests stored under a name (`catalog:NAME`), the rule for
//! names, and the check that a stored baseline still gives the digest
//! recorded beside it.

use std::time::SystemTime;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::error::CatalogError;
use super::handle::{rfc3339, Catalog};
use super::row::{column_problem, count, quoted};
use crate::digest::Sha256Digest;
use crate::manifest::{Format, Manifest};

/// Longest baseline name.
pub const MAX_BASELINE_NAME: usize = 128;

/// Checks a baseline name: 1 to 128 characters from `A-Z a-z 0-9 . _ - + @ /`,
/// starting with a letter or digit, no `..` and no trailing `/` (so that a
/// name is also a safe file name stem and reads well after `catalog:`).
pub fn validate_baseline_name(name: &str) -> Result<(), CatalogError> {
    let bad = |reason: &str| {
        Err(CatalogError::BadName {
            name: name.to_string(),
            reason: reason.to_string(),
        })
    };
    if name.is_empty() || name.len() > MAX_BASELINE_NAME {
        return bad("must be 1 to 128 characters");
    }
    if !name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return bad("must start with a letter or digit");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._-+@/".contains(*c)))
    {
        return bad(&format!(
            "{c:?} is not allowed (use letters, digits and . _ - + @ /)"
        ));
    }
    if name.contains("..") || name.ends_with('/') || name.contains("//") {
        return bad("no '..', '//' or trailing '/'");
    }
    Ok(())
}

/// A baseline as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaselineInfo {
    /// Its name (`catalog:NAME`).
    pub name: String,
    /// The manifest digest, `sha256:<hex>`.
    pub digest: String,
    /// Number of files.
    pub files: u64,
    /// Total bytes, when the manifest carries sizes.
    pub bytes: Option<u64>,
    /// What it was recorded from.
    pub source: String,
    /// When (RFC 3339 UTC).
    pub time: String,
    /// Tool and version that recorded it.
    pub tool: String,
}

/// Reads the listing fields of a baseline row; `Err` is why it is damaged.
fn info_fields(r: &rusqlite::Row<'_>) -> Result<BaselineInfo, String> {
    let col = |e| column_problem(r, &e);
    Ok(BaselineInfo {
        name: r.get(0).map_err(col)?,
        digest: format!("sha256:{}", r.get::<_, String>(1).map_err(col)?),
        files: count(r, 2)?.ok_or("files is NULL")?,
        bytes: count(r, 3)?,
        source: r.get(4).map_err(col)?,
        time: r.get(5).map_err(col)?,
        tool: r.get(6).map_err(col)?,
    })
}

/// The fields of a baseline row other than its body.
pub(super) struct BaselineRow<'a> {
    pub name: &'a str,
    pub digest: &'a Sha256Digest,
    pub files: u64,
    pub bytes: Option<u64>,
    pub format: &'static str,
    pub source: &'a str,
}

impl Catalog {
    /// Writes the baseline row (replacing any of that name) in `tx`; the
    /// digest of the row it replaced, when it had a readable one.
    pub(super) fn replace_baseline_row(
        &self,
        tx: &rusqlite::Transaction<'_>,
        row: &BaselineRow<'_>,
        body: &dyn rusqlite::ToSql,
    ) -> Result<Option<String>, CatalogError> {
        // A damaged old row is replaced all the same; it just has no digest.
        let old: Option<String> = tx
            .query_row(
                "SELECT manifest_sha256 FROM baselines WHERE name = ?1",
                [row.name],
                |r| Ok(r.get(0).ok()),
            )
            .optional()
            .map_err(|e| self.err(e))?
            .flatten();
        tx.execute(
            "INSERT OR REPLACE INTO baselines (name, manifest_sha256, files, bytes, format, body, source, recorded_at, tool)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                row.name,
                row.digest.to_hex(),
                row.files as i64,
                row.bytes.map(|b| b as i64),
                row.format,
                body,
                row.source,
                rfc3339(SystemTime::now()),
                crate::TOOL
            ],
        )
        .map_err(|e| self.err(e))?;
        Ok(old)
    }

    /// Stores `manifest` as the baseline `name`, replacing any earlier one;
    /// returns the digest of the baseline it replaced. `source` says what it
    /// was recorded from (a path), for listings.
    pub fn put_baseline(
        &self,
        name: &str,
        manifest: &Manifest,
        source: &str,
    ) -> Result<Option<Sha256Digest>, CatalogError> {
        validate_baseline_name(name)?;
        let (format, body) = if manifest.has_sizes() {
            ("json", manifest.to_json_record()?)
        } else {
            ("canonical", manifest.canonical_text())
        };
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let old = self.replace_baseline_row(
            &tx,
            &BaselineRow {
                name,
                digest: &manifest.digest(),
                files: manifest.len() as u64,
                bytes: manifest.total_bytes(),
                format,
                source,
            },
            &body.as_bytes(),
        )?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(old.and_then(|h| Sha256Digest::parse_hex(&h).ok()))
    }

    /// The baseline `name`, if there is one. Its stored digest is checked
    /// against its entries, so a damaged row is an error, never a wrong
    /// baseline.
    pub fn get_baseline(&self, name: &str) -> Result<Option<Manifest>, CatalogError> {
        let conn = self.lock();
        let row = conn
            .query_row(
                "SELECT manifest_sha256, format, body FROM baselines WHERE name = ?1",
                [name],
                |r| {
                    let col = |e| column_problem(r, &e);
                    let read = || -> Result<(String, String, Vec<u8>), String> {
                        Ok((
                            r.get(0).map_err(col)?,
                            r.get(1).map_err(col)?,
                            r.get(2).map_err(col)?,
                        ))
                    };
                    Ok(read())
                },
            )
            .optional()
            .map_err(|e| self.err(e))?;
        drop(conn);
        let Some(row) = row else {
            return Ok(None);
        };
        let bad = |reason: &str| self.bad_row(format!("baseline {}", quoted(name)), reason);
        let (digest, format, body) = row.map_err(|r| bad(&r))?;
        let format = match format.as_str() {
            "json" => Format::Json,
            "canonical" => Format::Canonical,
            other => return Err(bad(&format!("unknown format {}", quoted(other)))),
        };
        let (m, _) = Manifest::parse(&body, Some(format), &format!("catalog:{name}"))
            .map_err(|e| bad(&e.to_string()))?;
        if m.digest().to_hex() != digest {
            return Err(bad(&format!(
                "its entries give {} but the recorded digest is {}",
                m.digest().prefixed(),
                quoted(&format!("sha256:{digest}"))
            )));
        }
        Ok(Some(m))
    }

    /// [`CatalogError::BaselineExists`] when a baseline `name` exists (a
    /// damaged one too), so that recording over it needs `--replace`.
    pub fn refuse_existing_baseline(&self, name: &str) -> Result<(), CatalogError> {
        let digest = match self.get_baseline(name) {
            Ok(None) => return Ok(()),
            Ok(Some(m)) => m.digest().prefixed(),
            Err(CatalogError::BadRow { .. }) => "damaged".to_string(),
            Err(e) => return Err(e),
        };
        Err(CatalogError::BaselineExists {
            path: self.path.clone(),
            name: name.to_string(),
            digest,
        })
    }

    /// Like [`Catalog::get_baseline`], but a missing name is an error.
    pub fn require_baseline(&self, name: &str) -> Result<Manifest, CatalogError> {
        self.get_baseline(name)?
            .ok_or_else(|| CatalogError::NoBaseline {
                path: self.path.clone(),
                name: name.to_string(),
            })
    }

    /// The baseline `name` written as a plain manifest file in `format`
    /// (JSON needs sizes, i.e. a baseline recorded from a directory).
    pub fn export_baseline(&self, name: &str, format: Format) -> Result<String, CatalogError> {
        Ok(self.require_baseline(name)?.render(format)?)
    }

    /// All baselines, by name. A baseline whose listing fields cannot be
    /// read is [`CatalogError::BadRow`] naming it (its manifest is read only
    /// by [`Catalog::get_baseline`]).
    pub fn baselines(&self) -> Result<Vec<BaselineInfo>, CatalogError> {
        let conn = self.lock();
        let mut st = conn
            .prepare("SELECT name, manifest_sha256, files, bytes, source, recorded_at, tool, rowid FROM baselines ORDER BY name")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get::<_, i64>(7)?, r.get::<_, String>(0), info_fields(r)))
            })
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(rowid, name, info)| {
                info.map_err(|reason| {
                    let what = match &name {
                        Ok(n) => format!("baseline {}", quoted(n)),
                        Err(_) => format!("the baseline of rowid {rowid}"),
                    };
                    self.bad_row(what, &reason)
                })
            })
            .collect()
    }

    /// Number of baselines (counted, not read: damaged rows count too).
    pub fn baselines_len(&self) -> Result<u64, CatalogError> {
        self.count_rows("baselines")
    }

    /// Deletes a baseline; false if there was none of that name.
    pub fn forget_baseline(&self, name: &str) -> Result<bool, CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let n = tx
            .execute("DELETE FROM baselines WHERE name = ?1", [name])
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["kimi-k3-weights", "a", "team/model@v1.2", "X_9+1"] {
            assert!(validate_baseline_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "a b",
            "a..b",
            "a/",
            "a//b",
            "a:b",
            &"x".repeat(129),
        ] {
            assert!(validate_baseline_name(bad).is_err(), "{bad:?}");
        }
    }
}
