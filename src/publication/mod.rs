//! A published qualification write-up, read as GitHub shows it (contract
//! section 9): parsed once ([`markdown`], a port of cmark-gfm), checked for
//! anything that can hide or fake content ([`document`]), and every table
//! of the rendered document classified: a pinned-inputs table (header
//! `Input | Value`), a measured-points table (a header of the
//! measured-points vocabulary, wherever it stands), or a table proofpack
//! does not read, which is kept so that the verdict names it as not
//! checked. Every header cell and every cell of a table proofpack reads is
//! consumed completely by its closed grammar ([`grammar`]) or the write-up
//! is refused, naming the line and the words not understood.
//!
//! This module only reads; what each row means for the evidence is decided
//! by the qualify layer (`published`). This file holds the error type, the
//! rows and cells as read and [`Publication::parse`]; `find` classifies the
//! tables and finds the bundle digest in the prose; `pinned` reads the
//! pinned-inputs rows by their labels; `points` reads the measured-points
//! rows by their headers.

pub mod document;
pub mod grammar;
pub mod markdown;
pub mod statements;
pub mod values;

mod find;
mod pinned;
mod points;

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
pub use document::Document;
pub use grammar::Qualifier;
pub use pinned::{LabelKind, LABELS};
pub use statements::Statement;
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
    /// More statements than [`statements::MAX_STATEMENTS`]; the line
    /// of the first one past the limit.
    #[error("{origin}:{line}: more than {} statements (sentences or clauses stating a number, a digest, a count or an outcome); this is not a write-up proofpack reads", statements::MAX_STATEMENTS)]
    TooManyStatements {
        /// The write-up.
        origin: String,
        /// Line (1-based).
        line: usize,
    },
    /// Something that can hide or fake what a reader sees.
    #[error("{origin}:{line}:{column}: {what}")]
    Refused {
        /// The write-up.
        origin: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based, bytes).
        column: usize,
        /// What was found.
        what: String,
    },
    /// No table proofpack reads.
    #[error("{origin}: no pinned-inputs table (header \"| Input | Value |\") and no measured-points table (header \"| Offered rate | ... |\"): nothing in it is read")]
    NoTable {
        /// The write-up.
        origin: String,
    },
    /// A pinned-inputs table is there twice.
    #[error("{origin}:{line}: a second pinned-inputs table (the first is at line {first}); a write-up publishes one")]
    Duplicate {
        /// The write-up.
        origin: String,
        /// Line of the second.
        line: usize,
        /// Line of the first.
        first: usize,
    },
    /// A header cell of a measured-points table is not understood.
    #[error("{origin}:{line}: header {header:?} of a measured-points table: {reason}")]
    BadHeader {
        /// The write-up.
        origin: String,
        /// Its line.
        line: usize,
        /// The header cell.
        header: String,
        /// What was not understood.
        reason: String,
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
    /// A cell of a measured-points table cannot be read.
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
        /// The number of files the manifest lists, when stated ("102
        /// files").
        files: Option<u64>,
        /// The number of `.safetensors` files it lists, when stated ("96
        /// safetensors shards").
        shards: Option<u64>,
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

/// What a rate or throughput is divided by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// The whole fleet (nothing).
    Fleet,
    /// Each attested GPU of the fleet.
    Gpu,
    /// Each engine of the run.
    Engine,
}

/// A numeric metric of the measured-points table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// The send rate as measured (proofpack's own table has it).
    SentRate,
    /// Completed requests per second, including drain.
    CompletedRate(Per),
    /// Output tokens per second, including drain.
    OutputThroughput(Per),
    /// TTFT percentile, in hundredths (p99.9 is 9990).
    Ttft(u16),
    /// TPOT percentile, in hundredths.
    Tpot(u16),
}

/// `p50`, `p99.9`: a percentile in hundredths as written in a key.
pub fn percentile_name(p: u16) -> String {
    let s = format!("{}.{:02}", p / 100, p % 100);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("p{s}")
}

impl Metric {
    /// The id part of the metric (`ttft_s.p95`, `output_throughput.per_gpu`),
    /// as in qualification claims.
    pub fn key(self) -> String {
        let per = |base: &str, p: Per| match p {
            Per::Fleet => base.to_string(),
            Per::Gpu => format!("{base}.per_gpu"),
            Per::Engine => format!("{base}.per_engine"),
        };
        match self {
            Metric::SentRate => "sent_rate".into(),
            Metric::CompletedRate(p) => per("completed_rate", p),
            Metric::OutputThroughput(p) => per("output_throughput", p),
            Metric::Ttft(p) => format!("ttft_s.{}", percentile_name(p)),
            Metric::Tpot(p) => format!("tpot_ms.{}", percentile_name(p)),
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
        /// The unit as written (shared by the cells of one table cell).
        unit: std::sync::Arc<str>,
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
}

/// A cell and the column it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The column header as published (shared by the column's cells).
    pub column: std::sync::Arc<str>,
    /// Its line.
    pub line: usize,
    /// The value.
    pub value: CellValue,
}

impl Cell {
    /// The id part of the check (`ttft_s.p95`, `result`).
    pub fn key(&self) -> String {
        match &self.value {
            CellValue::Number { metric, .. } => metric.key(),
            CellValue::Result { .. } => "result".into(),
        }
    }

    /// What the cell states, as a value to compare (two cells of one
    /// offered rate may not state the same thing).
    fn states(&self) -> Option<Metric> {
        match &self.value {
            CellValue::Number { metric, .. } => Some(*metric),
            CellValue::Result { .. } => None,
        }
    }
}

/// One offered rate of the measured-points tables: its cells from every
/// table that publishes the rate.
#[derive(Debug, Clone, PartialEq)]
pub struct PointRow {
    /// The line of its first row.
    pub line: usize,
    /// The offered rate, requests/s, as published.
    pub offered: Decimal,
    /// Every other cell.
    pub cells: Vec<Cell>,
}

/// A table of the rendered write-up that is neither a pinned-inputs nor a
/// measured-points table: not checked, and named in the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct UncheckedTable {
    /// Line of its header row.
    pub line: usize,
    /// Its header cells.
    pub header: Vec<String>,
    /// Its body rows.
    pub rows: usize,
}

/// A write-up, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    /// Where it came from.
    pub origin: String,
    /// The whole rendered document (prose and tables), for checks over
    /// its prose.
    pub document: Document,
    /// The pinned-inputs rows, in order.
    pub pinned: Vec<PinnedRow>,
    /// The measured-points rows, by offered rate, in order.
    pub points: Vec<PointRow>,
    /// Line of each measured-points table's header row.
    pub measured_tables: Vec<usize>,
    /// Tables that proofpack does not read.
    pub unchecked_tables: Vec<UncheckedTable>,
    /// The bundle digest the prose states ("... bundle ... (SHA-256 `<hex>`)"),
    /// with its line.
    pub bundle: Option<(Sha256Digest, usize)>,
    /// Every sentence or clause of the prose that states a number,
    /// digest, count or outcome, in order ([`statements`]).
    pub statements: Vec<Statement>,
    /// SHA-256 of the file's bytes, when read from a file
    /// ([`Publication::read`]); an input of a verification summary.
    pub source_sha256: Option<Sha256Digest>,
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
        let digest = Sha256Digest::of_bytes(&bytes);
        let text = String::from_utf8(bytes).map_err(|e| PublicationError::Unreadable {
            path: path.into(),
            reason: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        let origin = path.display().to_string();
        // The text is given up to the parse, which drops it once it has its
        // own copy: an 8 MiB write-up is read in under 64 MiB (contract
        // section 9, docs/performance.md).
        let document = Document::parse_owned(text, &origin)?;
        let mut p = Publication::of_document(document, &origin)?;
        p.source_sha256 = Some(digest);
        Ok(p)
    }

    /// Parses write-up text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Publication, PublicationError> {
        Publication::of_document(Document::parse(text, origin)?, origin)
    }

    fn of_document(document: Document, origin: &str) -> Result<Publication, PublicationError> {
        let found = find::classify(&document, origin)?;
        let pinned = match found.pinned {
            Some(t) => pinned::pinned_rows(t, origin)?,
            None => Vec::new(),
        };
        let points = points::point_rows(&found.measured, origin)?;
        if found.pinned.is_none() && found.measured.is_empty() {
            return Err(PublicationError::NoTable {
                origin: origin.into(),
            });
        }
        let bundle = find::bundle_digest(&document, origin)?;
        let statements =
            statements::statements(&document).map_err(|e| PublicationError::TooManyStatements {
                origin: origin.into(),
                line: e.0,
            })?;
        Ok(Publication {
            statements,
            origin: origin.into(),
            measured_tables: found.measured.iter().map(|t| t.line).collect(),
            unchecked_tables: found.unchecked,
            pinned,
            points,
            bundle,
            document,
            source_sha256: None,
        })
    }
}

#[cfg(test)]
mod tests;
