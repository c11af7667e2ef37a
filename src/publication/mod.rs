//! A published qualification write-up, read as the auditor reads it: its
//! "Pinned inputs" table, its "Measured points" table and the bundle digest
//! its prose states (issue 11, contract section 9).
//!
//! This module only reads the write-up into typed rows and cells; what each
//! means for the evidence is decided by the qualify layer (`published`). It
//! reads Markdown (GFM tables) and the plain text a docs site exports
//! ([`markdown`]); tables are found by their headings ("Pinned inputs",
//! "Measured points", any case, with or without a trailing `¶`) or, failing
//! that, by their header rows. Values are parsed ([`values`]): a row or a
//! cell that cannot be read is an error naming its line, never guessed at.
//! A row whose label proofpack does not know is kept ([`Pinned::Text`]) so
//! that the checks can report it as not mapped: nothing published is
//! silently dropped.
//!
//! This file holds the error type, the rows and cells as read and
//! [`Publication::parse`]; `find` finds the two tables and the bundle digest
//! in the prose; `pinned` reads the pinned-inputs rows by their labels;
//! `points` reads the measured-points rows by their column headers.

pub mod markdown;
pub mod values;

mod find;
mod pinned;
mod points;

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
use find::{bundle_digest, find, header_has, MEASURED, PINNED};
use pinned::pinned_rows;
use points::point_rows;
pub use values::{slug, Decimal};

/// Largest write-up read.
pub const MAX_PUBLICATION_BYTES: u64 = 8 << 20;

/// Errors reading a write-up: it is an argument, so each is exit 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublicationError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The write-up.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_PUBLICATION_BYTES`] or not UTF-8.
    #[error("{}: {reason}", path.display())]
    Unreadable {
        /// The write-up.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A table the verification needs is not there.
    #[error("{origin}: no \"{what}\" table: expected a heading \"{what}\" followed by a pipe table ({hint}), or a table with that header row")]
    NoTable {
        /// The write-up.
        origin: String,
        /// Which table.
        what: &'static str,
        /// The header it was looked for by.
        hint: &'static str,
    },
    /// A table is there twice.
    #[error("{origin}:{line}: a second \"{what}\" table (the first is at line {first}); a write-up publishes one")]
    Duplicate {
        /// The write-up.
        origin: String,
        /// Which table.
        what: &'static str,
        /// Line of the second.
        line: usize,
        /// Line of the first.
        first: usize,
    },
    /// A table lacks a column it needs.
    #[error(
        "{origin}:{line}: the \"{what}\" table has no {column} column (its header is {header:?})"
    )]
    MissingColumn {
        /// The write-up.
        origin: String,
        /// Which table.
        what: &'static str,
        /// Line of its header.
        line: usize,
        /// The column.
        column: &'static str,
        /// The header as read.
        header: Vec<String>,
    },
    /// A row has more cells than the table's header (a cell without a
    /// column would be dropped).
    #[error("{origin}:{line}: this row of the \"{what}\" table has {cells} cells, its header {} ({header:?}): a cell without a column cannot be checked", header.len())]
    ExtraCells {
        /// The write-up.
        origin: String,
        /// Which table.
        what: &'static str,
        /// The row's line.
        line: usize,
        /// Cells written in the row.
        cells: usize,
        /// The header as read.
        header: Vec<String>,
    },
    /// A row of the pinned-inputs table cannot be read.
    #[error("{origin}:{line}: row {label:?}: {reason}")]
    BadRow {
        /// The write-up.
        origin: String,
        /// Its line.
        line: usize,
        /// The row label.
        label: String,
        /// What was expected.
        reason: String,
    },
    /// A cell of the measured-points table cannot be read.
    #[error("{origin}:{line}: column {column:?}: {cell:?}: {reason}")]
    BadCell {
        /// The write-up.
        origin: String,
        /// Its line.
        line: usize,
        /// The column header.
        column: String,
        /// The cell as written.
        cell: String,
        /// What was expected.
        reason: String,
    },
}

/// What a row of the pinned-inputs table states, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Pinned {
    /// A digest: a row labelled "... SHA-256", or "Checkpoint weights" with
    /// "manifest is `<hex>`" (and its file count, "96 safetensors shards").
    Digest {
        /// The digest.
        digest: Sha256Digest,
        /// The number of files the manifest lists, when stated.
        files: Option<u64>,
    },
    /// "Engine": `<name> <version>, image sha256:<hex>`.
    Engine {
        /// Engine name ("vLLM").
        name: String,
        /// Version ("0.29.0+rocm100").
        version: String,
        /// Image digest, when stated.
        image: Option<Sha256Digest>,
    },
    /// "Accelerator per engine": `<name>, <count> GPUs, tensor parallelism <n>`.
    Accelerator {
        /// Accelerator name.
        name: String,
        /// GPUs per engine, and the word it was written as.
        count: Option<(u64, String)>,
        /// Tensor parallelism.
        tensor: Option<u64>,
    },
    /// "Model".
    Model(String),
    /// A source commit ("... source": 40 hex).
    Commit(String),
    /// "Fleet latency budgets": (value, factor to seconds) of each.
    Budgets {
        /// TTFT budget.
        ttft: Option<(Decimal, f64)>,
        /// TPOT budget.
        tpot: Option<(Decimal, f64)>,
        /// First-token deadline.
        deadline: Option<(Decimal, f64)>,
    },
    /// "Workload" parameters.
    Workload(Workload),
    /// Any other row: its value as written.
    Text,
}

/// The parameters of a "Workload" row, each when stated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    /// Input tokens per request.
    pub input_tokens: Option<u64>,
    /// Output tokens per request.
    pub output_tokens: Option<u64>,
    /// Seed.
    pub seed: Option<Decimal>,
    /// Sampling temperature.
    pub temperature: Option<Decimal>,
    /// Prefix caching enabled?
    pub prefix_caching: Option<bool>,
    /// Distinct token ids in the prompt pool.
    pub distinct_ids: Option<u64>,
    /// Size of the prompt token pool.
    pub pool: Option<u64>,
}

/// One row of the pinned-inputs table.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedRow {
    /// The label as published.
    pub label: String,
    /// Its slug (the check id's last part).
    pub slug: String,
    /// The value as published.
    pub value: String,
    /// Its line.
    pub line: usize,
    /// What it states.
    pub kind: Pinned,
    /// Cells of further columns (a "Notes" column): header and text, the
    /// non-empty ones.
    pub extra: Vec<(String, String)>,
}

/// A numeric metric of the measured-points table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// The send rate as measured (proofpack's own table has it).
    SentRate,
    /// Completed requests per second, including drain.
    CompletedRate,
    /// Output tokens per second, including drain.
    OutputThroughput,
    /// TTFT percentile (50, 95, 99).
    Ttft(u8),
    /// TPOT percentile.
    Tpot(u8),
}

impl Metric {
    /// The id part of the metric (`ttft_s.p95`), as in qualification claims.
    pub fn key(self) -> String {
        match self {
            Metric::SentRate => "sent_rate".into(),
            Metric::CompletedRate => "completed_rate".into(),
            Metric::OutputThroughput => "output_throughput".into(),
            Metric::Ttft(p) => format!("ttft_s.p{p}"),
            Metric::Tpot(p) => format!("tpot_ms.p{p}"),
        }
    }
}

/// A cell of the measured-points table.
#[derive(Debug, Clone, PartialEq)]
pub enum CellValue {
    /// A number: the metric, the decimal as published, and the factor from
    /// the published unit to proofpack's (requests/s, tokens/s, TTFT in s,
    /// TPOT in ms).
    Number {
        /// The metric.
        metric: Metric,
        /// As published.
        value: Decimal,
        /// Published unit -> canonical unit.
        factor: f64,
        /// The unit as written.
        unit: String,
    },
    /// "200/200 within limits[, 2 failed, 1 timed out, 0 cancelled]".
    Result {
        /// Requests within limits.
        within: u64,
        /// Out of.
        of: u64,
        /// Failed, when stated.
        failed: Option<u64>,
        /// Timed out, when stated.
        timed_out: Option<u64>,
        /// Cancelled, when stated.
        cancelled: Option<u64>,
    },
    /// A column proofpack does not know: the text as written.
    Unmapped(String),
}

/// A cell and the column it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The column header as published.
    pub column: String,
    /// The id part of the check (`ttft_s.p95`, `result`, or the column's slug).
    pub key: String,
    /// The value.
    pub value: CellValue,
}

/// One row of the measured-points table.
#[derive(Debug, Clone, PartialEq)]
pub struct PointRow {
    /// Its line.
    pub line: usize,
    /// The offered rate, requests/s, as published.
    pub offered: Decimal,
    /// Every other cell.
    pub cells: Vec<Cell>,
}

/// A write-up, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    /// Where it came from.
    pub origin: String,
    /// The pinned-inputs rows, in order.
    pub pinned: Vec<PinnedRow>,
    /// The measured-points rows, in order.
    pub points: Vec<PointRow>,
    /// The bundle digest the prose states ("... bundle ... (SHA-256 `<hex>`)"),
    /// with its line.
    pub bundle: Option<(Sha256Digest, usize)>,
}

impl Publication {
    /// Reads a write-up file.
    pub fn read(path: &Path) -> Result<Publication, PublicationError> {
        let bytes =
            crate::manifest::read_capped(path, MAX_PUBLICATION_BYTES).map_err(|e| match e {
                crate::manifest::ManifestError::TooLarge { .. } => PublicationError::Unreadable {
                    path: path.into(),
                    reason: format!(
                        "larger than {MAX_PUBLICATION_BYTES} bytes; this is not a write-up"
                    ),
                },
                crate::manifest::ManifestError::Io { source, .. } => PublicationError::Io {
                    path: path.into(),
                    source,
                },
                other => PublicationError::Unreadable {
                    path: path.into(),
                    reason: other.to_string(),
                },
            })?;
        let text = String::from_utf8(bytes).map_err(|e| PublicationError::Unreadable {
            path: path.into(),
            reason: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        Publication::parse(&text, &path.display().to_string())
    }

    /// Parses write-up text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Publication, PublicationError> {
        let (tables, prose) = markdown::read(text);
        if tables.is_empty() {
            return Err(PublicationError::NoTable {
                origin: origin.into(),
                what: PINNED,
                hint: "| Input | Value |",
            });
        }
        let pinned_t = find(
            &tables,
            origin,
            PINNED,
            |t| header_has(t, "input") && header_has(t, "value"),
            "| Input | Value |",
        )?;
        let measured_t = find(
            &tables,
            origin,
            MEASURED,
            |t| header_has(t, "offered"),
            "| Offered rate | ... |",
        )?;
        let pinned = pinned_rows(pinned_t, origin)?;
        let points = point_rows(measured_t, origin)?;
        let bundle = bundle_digest(&prose, origin)?;
        Ok(Publication {
            origin: origin.into(),
            pinned,
            points,
            bundle,
        })
    }
}

#[cfg(test)]
mod tests;
