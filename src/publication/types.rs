//! What reading a write-up yields, besides the document: the error type, the
//! pinned-inputs rows, and the measured-points rows and cells (re-exported
//! by the module).

use std::path::PathBuf;

use crate::digest::Sha256Digest;

use super::values::Decimal;

/// Most statements a write-up may hold: every statement becomes a
/// check of the verification, so their number bounds its memory; a
/// write-up states a few hundred at most.
pub const MAX_STATEMENTS: usize = 10_000;

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
    /// More statements than [`MAX_STATEMENTS`]; the line
    /// of the first one past the limit.
    #[error("{origin}:{line}: more than {} statements (sentences or clauses of the prose); this is not a write-up proofpack reads", MAX_STATEMENTS)]
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
    pub(super) fn states(&self) -> Option<Metric> {
        match &self.value {
            CellValue::Number { metric, .. } => Some(*metric),
            CellValue::Result { .. } => None,
        }
    }
}

/// One point of the measured-points tables (by its offered rate, or by its
/// name where a `Point` column gives it): its cells from every table that
/// publishes it.
#[derive(Debug, Clone, PartialEq)]
pub struct PointRow {
    /// The line of its first row.
    pub line: usize,
    /// The offered rate, requests/s, as published.
    pub offered: Decimal,
    /// The point's name, when its table has a `Point` column.
    pub point: Option<String>,
    /// Every other cell.
    pub cells: Vec<Cell>,
}

impl PointRow {
    /// The row's part of its check ids: the offered rate as written, and
    /// `:<name>` when a `Point` column names the point.
    pub fn key(&self) -> String {
        match &self.point {
            Some(name) => format!("{}:{name}", self.offered.text),
            None => self.offered.text.clone(),
        }
    }
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
