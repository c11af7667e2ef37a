//! The ledger: records of `seal` and `verify` runs ([`RunRecord`] in,
//! [`RecordSummary`] and [`StoredRecord`] out), and the queries (`id:N`, a
//! digest or digest prefix, a run name or target) that `catalog show` and
//! `catalog forget` select them with.

use std::time::SystemTime;

use rusqlite::{params, Connection, TransactionBehavior};
use serde::Serialize;

use super::error::CatalogError;
use super::handle::{rfc3339, Catalog};
use super::row::{column_problem, quoted};
use crate::digest::Sha256Digest;

/// Normalises a digest given by a caller (bare hex of either case, or
/// `sha256:<hex>`) to bare lowercase hex.
fn norm_digest(field: &'static str, v: &Option<String>) -> Result<Option<String>, CatalogError> {
    let Some(s) = v else { return Ok(None) };
    let d = match s.strip_prefix("sha256:") {
        Some(hex) => Sha256Digest::parse_hex(hex),
        None => Sha256Digest::parse_hex(s),
    }
    .map_err(|e| CatalogError::BadDigest {
        field,
        reason: e.to_string(),
    })?;
    Ok(Some(d.to_hex()))
}

/// What kind of event a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// `proofpack seal`.
    Seal,
    /// `proofpack verify`.
    Verify,
}

impl RecordKind {
    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Seal => "seal",
            RecordKind::Verify => "verify",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        match s {
            "seal" => Some(RecordKind::Seal),
            "verify" => Some(RecordKind::Verify),
            _ => None,
        }
    }
}

/// What `proofpack seal` and `proofpack verify` record. Build it with
/// struct update syntax:
/// `RunRecord { target, bundle_sha256: Some(..), report_json, ..Default::default() }`.
#[derive(Debug, Clone)]
pub struct RunRecord {
    /// What was sealed or verified (the bundle or run directory path as given).
    pub target: String,
    /// SHA-256 of the .tgz (bare hex or `sha256:<hex>`), for a bundle.
    pub bundle_sha256: Option<String>,
    /// SHA-256 of the bundle's MANIFEST.
    pub manifest_sha256: Option<String>,
    /// The qualification's name.
    pub run_name: Option<String>,
    /// SHA-256 of the pins file given, if any.
    pub pins_sha256: Option<String>,
    /// True when the seal succeeded or the evidence holds.
    pub ok: bool,
    /// The full JSON report that the verb prints with `--json`.
    pub report_json: String,
    /// Tool and version (defaults to [`crate::TOOL`]).
    pub tool: String,
    /// When it happened (defaults to now).
    pub time: SystemTime,
}

impl Default for RunRecord {
    fn default() -> Self {
        RunRecord {
            target: String::new(),
            bundle_sha256: None,
            manifest_sha256: None,
            run_name: None,
            pins_sha256: None,
            ok: true,
            report_json: "{}".into(),
            tool: crate::TOOL.into(),
            time: SystemTime::now(),
        }
    }
}

/// What `proofpack seal` records.
pub type SealRecord = RunRecord;
/// What `proofpack verify` records.
pub type VerificationRecord = RunRecord;

/// A record as stored, without its report (for listings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordSummary {
    /// Record id (`id:N` in queries).
    pub id: i64,
    /// Seal or verify.
    pub kind: RecordKind,
    /// When (RFC 3339 UTC).
    pub time: String,
    /// Tool and version that wrote it.
    pub tool: String,
    /// What was sealed or verified.
    pub target: String,
    /// The qualification's name.
    pub run_name: Option<String>,
    /// Bundle digest (bare hex).
    pub bundle_sha256: Option<String>,
    /// MANIFEST digest (bare hex).
    pub manifest_sha256: Option<String>,
    /// Pins digest (bare hex).
    pub pins_sha256: Option<String>,
    /// The verdict.
    pub ok: bool,
}

/// A record with its stored report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// The listing fields.
    pub summary: RecordSummary,
    /// The JSON report exactly as recorded.
    pub report_json: String,
}

/// A parsed `show`/`forget` query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Query {
    Id(i64),
    Digest(String),
    Prefix(String),
    Name(String),
}

fn parse_query(q: &str) -> Result<Query, CatalogError> {
    if let Some(n) = q.strip_prefix("id:") {
        return n
            .parse()
            .map(Query::Id)
            .map_err(|_| CatalogError::BadDigest {
                field: "record id",
                reason: format!("{q:?}: expected id:<number>"),
            });
    }
    if let Some(hex) = q.strip_prefix("sha256:") {
        let d = Sha256Digest::parse_hex(hex).map_err(|e| CatalogError::BadDigest {
            field: "digest",
            reason: e.to_string(),
        })?;
        return Ok(Query::Digest(d.to_hex()));
    }
    let is_hex = !q.is_empty() && q.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex && q.len() == 64 {
        return Ok(Query::Digest(q.to_ascii_lowercase()));
    }
    if is_hex && q.len() >= 8 && q.len() < 64 {
        return Ok(Query::Prefix(q.to_ascii_lowercase()));
    }
    Ok(Query::Name(q.to_string()))
}

const RECORD_COLUMNS: &str = "id, kind, recorded_at, tool, target, run_name, bundle_sha256, manifest_sha256, pins_sha256, ok";

/// A row read back: its id, and its listing fields, or why they cannot be
/// read (a [`CatalogError::BadRow`] reason).
type ReadRow<T> = (i64, Result<T, String>);

/// Reads the [`RECORD_COLUMNS`] of a row. Only the id is trusted (it is the
/// rowid); every other value is checked for what proofpack writes.
fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ReadRow<RecordSummary>> {
    Ok((r.get(0)?, summary_fields(r)))
}

fn summary_fields(r: &rusqlite::Row<'_>) -> Result<RecordSummary, String> {
    let col = |e: rusqlite::Error| column_problem(r, &e);
    let kind: String = r.get(1).map_err(col)?;
    let kind = RecordKind::parse(&kind).ok_or_else(|| format!("unknown kind {}", quoted(&kind)))?;
    let ok = match r.get::<_, i64>(9).map_err(col)? {
        0 => false,
        1 => true,
        n => return Err(format!("ok is {n}, expected 0 or 1")),
    };
    Ok(RecordSummary {
        id: r.get(0).map_err(col)?,
        kind,
        time: r.get(2).map_err(col)?,
        tool: r.get(3).map_err(col)?,
        target: r.get(4).map_err(col)?,
        run_name: r.get(5).map_err(col)?,
        bundle_sha256: r.get(6).map_err(col)?,
        manifest_sha256: r.get(7).map_err(col)?,
        pins_sha256: r.get(8).map_err(col)?,
        ok,
    })
}

impl Catalog {
    fn insert_record(&self, kind: RecordKind, r: &RunRecord) -> Result<i64, CatalogError> {
        let bundle = norm_digest("bundle_sha256", &r.bundle_sha256)?;
        let manifest = norm_digest("manifest_sha256", &r.manifest_sha256)?;
        let pins = norm_digest("pins_sha256", &r.pins_sha256)?;
        let (target, run_name, ok, report_json, tool) =
            (&r.target, &r.run_name, r.ok, &r.report_json, &r.tool);
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO records (kind, recorded_at, tool, target, run_name, bundle_sha256, manifest_sha256, pins_sha256, ok, report_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![kind.as_str(), rfc3339(r.time), tool, target, run_name, bundle, manifest, pins, ok as i64, report_json],
        )
        .map_err(|e| self.err(e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// Records a seal; returns the record id.
    pub fn record_seal(&self, r: &SealRecord) -> Result<i64, CatalogError> {
        self.insert_record(RecordKind::Seal, r)
    }

    /// Records a verification; returns the record id.
    pub fn record_verification(&self, r: &VerificationRecord) -> Result<i64, CatalogError> {
        self.insert_record(RecordKind::Verify, r)
    }

    /// All records, newest first (at most `limit` when given). A record
    /// that cannot be read is [`CatalogError::BadRow`] naming it.
    pub fn list(&self, limit: Option<usize>) -> Result<Vec<RecordSummary>, CatalogError> {
        let conn = self.lock();
        let sql = format!("SELECT {RECORD_COLUMNS} FROM records ORDER BY id DESC LIMIT ?1");
        let limit = limit.map(|l| l.min(i64::MAX as usize) as i64).unwrap_or(-1);
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([limit], summary_from_row)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        rows.into_iter().map(|row| self.read_record(row)).collect()
    }

    /// Number of records (counted, not read: damaged rows count too).
    pub fn records_len(&self) -> Result<u64, CatalogError> {
        self.count_rows("records")
    }

    fn read_record<T>(&self, (id, row): ReadRow<T>) -> Result<T, CatalogError> {
        row.map_err(|reason| self.bad_row(format!("record id:{id}"), &reason))
    }

    /// Ids of the records a query selects, newest first.
    fn select_ids(&self, conn: &Connection, query: &str) -> Result<Vec<i64>, CatalogError> {
        let q = parse_query(query)?;
        let collect = |sql: &str, p: &dyn rusqlite::ToSql| -> Result<Vec<i64>, CatalogError> {
            let mut st = conn.prepare(sql).map_err(|e| self.err(e))?;
            let ids = st
                .query_map([p], |r| r.get(0))
                .and_then(|it| it.collect::<Result<Vec<i64>, _>>())
                .map_err(|e| self.err(e))?;
            Ok(ids)
        };
        let by_name = |name: &str| {
            collect(
                "SELECT id FROM records WHERE run_name = ?1 OR target = ?1 ORDER BY id DESC",
                &name,
            )
        };
        match q {
            Query::Id(id) => collect("SELECT id FROM records WHERE id = ?1", &id),
            Query::Digest(d) => collect(
                "SELECT id FROM records WHERE bundle_sha256 = ?1 OR manifest_sha256 = ?1 ORDER BY id DESC",
                &d,
            ),
            Query::Prefix(p) => {
                let mut st = conn
                    .prepare(
                        "SELECT id, bundle_sha256, manifest_sha256 FROM records
                         WHERE substr(bundle_sha256, 1, length(?1)) = ?1 OR substr(manifest_sha256, 1, length(?1)) = ?1
                         ORDER BY id DESC",
                    )
                    .map_err(|e| self.err(e))?;
                // A digest column that holds no text holds no digest.
                let rows = st
                    .query_map([&p], |r| {
                        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1).ok(), r.get::<_, String>(2).ok()))
                    })
                    .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| self.err(e))?;
                let mut digests: Vec<String> = rows
                    .iter()
                    .flat_map(|(_, b, m)| [b.clone(), m.clone()])
                    .flatten()
                    .filter(|d| d.starts_with(&p))
                    .collect();
                digests.sort();
                digests.dedup();
                if digests.len() > 1 {
                    return Err(CatalogError::Ambiguous {
                        query: query.to_string(),
                        candidates: digests,
                    });
                }
                if rows.is_empty() {
                    // An all-hex run name is still a name.
                    return by_name(query);
                }
                Ok(rows.into_iter().map(|r| r.0).collect())
            }
            Query::Name(n) => by_name(&n),
        }
    }

    /// The records a query selects, newest first, with their reports.
    /// A selected record that cannot be read is [`CatalogError::BadRow`].
    /// A query is `id:N`, a digest (`sha256:<hex>` or 64 hex) of a bundle or
    /// MANIFEST, a digest prefix of at least 8 hex characters, or a run name
    /// (or the target path as recorded). No match is [`CatalogError::NoMatch`].
    pub fn find(&self, query: &str) -> Result<Vec<StoredRecord>, CatalogError> {
        let conn = self.lock();
        let ids = self.select_ids(&conn, query)?;
        if ids.is_empty() {
            return Err(CatalogError::NoMatch {
                path: self.path.clone(),
                query: query.to_string(),
            });
        }
        let sql = format!("SELECT {RECORD_COLUMNS}, report_json FROM records WHERE id = ?1");
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = st
                .query_row([id], |r| {
                    let (id, summary) = summary_from_row(r)?;
                    let report = r.get::<_, String>(10).map_err(|e| column_problem(r, &e));
                    Ok((id, summary.and_then(|s| report.map(|json| (s, json)))))
                })
                .map_err(|e| self.err(e))?;
            let (summary, report_json) = self.read_record(row)?;
            out.push(StoredRecord {
                summary,
                report_json,
            });
        }
        Ok(out)
    }

    /// The newest record a query selects (see [`Catalog::find`]).
    pub fn show(&self, query: &str) -> Result<StoredRecord, CatalogError> {
        Ok(self.find(query)?.remove(0))
    }

    /// Deletes every record each query selects, all or nothing: if any
    /// query matches nothing, nothing is deleted. Returns how many went.
    pub fn forget(&self, queries: &[String]) -> Result<usize, CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let mut ids = Vec::new();
        for q in queries {
            let found = self.select_ids(&tx, q)?;
            if found.is_empty() {
                return Err(CatalogError::NoMatch {
                    path: self.path.clone(),
                    query: q.clone(),
                });
            }
            ids.extend(found);
        }
        ids.sort_unstable();
        ids.dedup();
        for id in &ids {
            tx.execute("DELETE FROM records WHERE id = ?1", [id])
                .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(ids.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries() {
        let h = "ab".repeat(32);
        assert_eq!(parse_query("id:7").unwrap(), Query::Id(7));
        assert!(parse_query("id:x").is_err());
        assert_eq!(
            parse_query(&format!("sha256:{}", h.to_uppercase())).unwrap(),
            Query::Digest(h.clone())
        );
        assert_eq!(parse_query(&h).unwrap(), Query::Digest(h.clone()));
        assert_eq!(
            parse_query("ABABABAB").unwrap(),
            Query::Prefix("abababab".into())
        );
        assert_eq!(parse_query("abab").unwrap(), Query::Name("abab".into()));
        assert_eq!(
            parse_query("issue44-run").unwrap(),
            Query::Name("issue44-run".into())
        );
        assert!(parse_query("sha256:xyz").is_err());
    }
}
