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

pub mod markdown;
pub mod values;

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;
use markdown::{Prose, RawTable};
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

const PINNED: &str = "Pinned inputs";
const MEASURED: &str = "Measured points";

fn heading_is(t: &RawTable, name: &str) -> bool {
    t.heading.as_deref().is_some_and(|h| {
        h.trim()
            .trim_end_matches('¶')
            .trim()
            .eq_ignore_ascii_case(name)
    })
}

fn header_has(t: &RawTable, word: &str) -> bool {
    t.header
        .iter()
        .any(|h| h.to_ascii_lowercase().contains(word))
}

/// The one table called `what`: by heading, else by header row.
fn find<'t>(
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

/// A row with more cells than its header: the extra ones would be lost.
fn overlong(t: &RawTable, origin: &str, what: &'static str) -> Result<(), PublicationError> {
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

fn pinned_rows(t: &RawTable, origin: &str) -> Result<Vec<PinnedRow>, PublicationError> {
    overlong(t, origin, PINNED)?;
    if t.header.len() < 2 {
        return Err(PublicationError::MissingColumn {
            origin: origin.into(),
            what: PINNED,
            line: t.line,
            column: "value",
            header: t.header.clone(),
        });
    }
    let mut out: Vec<PinnedRow> = Vec::new();
    for (line, cells) in &t.rows {
        let label = cells.first().cloned().unwrap_or_default();
        let value = cells.get(1).cloned().unwrap_or_default();
        if label.is_empty() && value.is_empty() {
            continue;
        }
        let bad = |reason: String| PublicationError::BadRow {
            origin: origin.into(),
            line: *line,
            label: label.clone(),
            reason,
        };
        if label.is_empty() {
            return Err(bad("the row has no label".into()));
        }
        if value.is_empty() {
            return Err(bad("the row has no value".into()));
        }
        let slug = slug(&label);
        if let Some(prev) = out.iter().find(|r| r.slug == slug) {
            return Err(bad(format!(
                "the same input is already published at line {}",
                prev.line
            )));
        }
        let kind = pinned_kind(&label, &value).map_err(bad)?;
        let extra = t
            .header
            .iter()
            .zip(cells.iter())
            .skip(2)
            .filter(|(_, c)| !c.is_empty())
            .map(|(h, c)| (h.clone(), c.clone()))
            .collect();
        out.push(PinnedRow {
            label,
            slug,
            value,
            line: *line,
            kind,
            extra,
        });
    }
    Ok(out)
}

fn pinned_kind(label: &str, value: &str) -> Result<Pinned, String> {
    let l = label.trim().to_ascii_lowercase();
    let one_digest = |what: &str| -> Result<Sha256Digest, String> {
        let d = values::digests(value);
        match d.len() {
            1 => Ok(d[0]),
            0 => Err(format!("{what}: expected a SHA-256 (64 hex characters)")),
            n => Err(format!("{what}: {n} SHA-256 values where one is expected")),
        }
    };
    if l.ends_with("sha-256") || l.ends_with("sha256") {
        return Ok(Pinned::Digest {
            digest: one_digest("a SHA-256 row")?,
            files: None,
        });
    }
    let lv = value.to_ascii_lowercase();
    if lv.contains("manifest is") {
        let files = ["shards", "files", "safetensors"]
            .iter()
            .find_map(|w| values::number_before(value, w))
            .map(|d| {
                d.as_u64()
                    .ok_or(format!("the file count {} is not a whole number", d.text))
            })
            .transpose()?;
        return Ok(Pinned::Digest {
            digest: one_digest("a manifest row")?,
            files,
        });
    }
    match l.as_str() {
        "engine" => {
            let head = value.split(',').next().unwrap_or("").trim();
            let mut words = head.split_whitespace();
            let (Some(name), Some(version)) = (words.next(), words.next()) else {
                return Err("expected \"<engine> <version>, image sha256:<hex>\"".into());
            };
            let d = values::digests(value);
            if d.len() > 1 {
                return Err("more than one image digest".into());
            }
            Ok(Pinned::Engine {
                name: name.into(),
                version: version.into(),
                image: d.first().copied(),
            })
        }
        "model" => Ok(Pinned::Model(value.trim().to_string())),
        _ if l.starts_with("accelerator") => {
            let name = value.split(',').next().unwrap_or("").trim().to_string();
            if name.is_empty() {
                return Err(
                    "expected \"<accelerator>, <count> GPUs, tensor parallelism <n>\"".into(),
                );
            }
            let count = ["GPUs", "GPU", "accelerators", "devices"]
                .iter()
                .find_map(|w| values::count_before(value, w));
            if count.is_none() && lv.contains("gpu") {
                return Err(
                    "the GPU count is not a number (digits, or one to sixteen in words)".into(),
                );
            }
            let tensor = match values::number_after(value, &["tensor", "parallelism"]) {
                Some(d) => Some(
                    d.as_u64()
                        .ok_or("tensor parallelism is not a whole number")?,
                ),
                None if lv.contains("tensor parallelism") => {
                    return Err("tensor parallelism is not a number".into())
                }
                None => None,
            };
            Ok(Pinned::Accelerator {
                name,
                count,
                tensor,
            })
        }
        _ if l.ends_with("source") => match values::commit(value) {
            Some(c) => Ok(Pinned::Commit(c)),
            None => Err("expected a 40-hex commit id".into()),
        },
        _ if l.contains("latency budget") => {
            let ttft = values::seconds_near(value, "TTFT");
            let tpot = values::seconds_near(value, "TPOT");
            let deadline = values::seconds_near(value, "deadline");
            if ttft.is_none() && tpot.is_none() && deadline.is_none() {
                return Err(
                    "expected budgets like \"10 s TTFT, 0.3 s TPOT; first-token deadline 8.5 s\""
                        .into(),
                );
            }
            Ok(Pinned::Budgets {
                ttft,
                tpot,
                deadline,
            })
        }
        "workload" => Ok(Pinned::Workload(workload(value)?)),
        _ => Ok(Pinned::Text),
    }
}

fn workload(value: &str) -> Result<Workload, String> {
    let whole = |d: Option<Decimal>, what: &str| -> Result<Option<u64>, String> {
        d.map(|d| {
            d.as_u64()
                .ok_or(format!("{what} {} is not a whole number", d.text))
        })
        .transpose()
    };
    let lv = value.to_ascii_lowercase();
    let prefix_caching =
        if lv.contains("prefix caching disabled") || lv.contains("prefix caching off") {
            Some(false)
        } else if lv.contains("prefix caching enabled") || lv.contains("prefix caching on") {
            Some(true)
        } else {
            None
        };
    let w = Workload {
        input_tokens: whole(values::number_before(value, "input"), "input tokens")?,
        output_tokens: whole(values::number_before(value, "output"), "output tokens")?,
        seed: values::number_after(value, &["seed"]),
        temperature: values::number_after(value, &["temperature"]),
        prefix_caching,
        distinct_ids: whole(values::number_before(value, "distinct"), "distinct IDs")?,
        pool: value
            .split_whitespace()
            .find_map(|t| t.strip_suffix("-token").and_then(Decimal::parse))
            .map(|d| {
                d.as_u64()
                    .ok_or("the token pool size is not a whole number")
            })
            .transpose()?,
    };
    if w == Workload::default() {
        return Err("no workload parameter could be read (input and output tokens, seed, temperature, prefix caching, token pool)".into());
    }
    Ok(w)
}

/// Which column a header names.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    Offered,
    Number(Vec<Metric>),
    Result,
    Other,
}

fn column(header: &str) -> Column {
    let h = header.to_ascii_lowercase();
    let percentiles = |mk: fn(u8) -> Metric| -> Vec<Metric> {
        let mut v = Vec::new();
        for p in [50u8, 90, 95, 99] {
            if h.contains(&format!("p{p}")) {
                v.push(mk(p));
            }
        }
        v
    };
    if h.contains("offered") {
        Column::Offered
    } else if h.contains("ttft") {
        Column::Number(percentiles(Metric::Ttft))
    } else if h.contains("tpot") {
        Column::Number(percentiles(Metric::Tpot))
    } else if h.contains("completed") {
        Column::Number(vec![Metric::CompletedRate])
    } else if h.contains("throughput") {
        Column::Number(vec![Metric::OutputThroughput])
    } else if h.contains("sent") && h.contains("rate") {
        Column::Number(vec![Metric::SentRate])
    } else if h.contains("result") {
        Column::Result
    } else {
        Column::Other
    }
}

/// The unit in a header's parentheses ("TTFT p50 (s)").
fn header_unit(header: &str) -> Option<String> {
    let open = header.rfind('(')?;
    let close = header[open..].find(')')? + open;
    Some(header[open + 1..close].trim().to_string())
}

/// The factor from `unit` to the metric's canonical unit, if it fits.
fn unit_factor(metric: Metric, unit: &str) -> Result<f64, String> {
    let u = unit.trim().to_ascii_lowercase();
    let rate = matches!(u.as_str(), "request/s" | "requests/s" | "req/s" | "rps");
    let tokens = matches!(u.as_str(), "tokens/s" | "token/s" | "tok/s");
    let secs = matches!(u.as_str(), "s" | "sec" | "seconds");
    let ms = u == "ms";
    if !(rate || tokens || secs || ms) {
        return Err(format!(
            "unknown unit {unit:?} (known: request/s, tokens/s, s, ms)"
        ));
    }
    let ok = match metric {
        Metric::SentRate | Metric::CompletedRate => rate.then_some(1.0),
        Metric::OutputThroughput => tokens.then_some(1.0),
        Metric::Ttft(_) => (secs || ms).then_some(if ms { 0.001 } else { 1.0 }),
        Metric::Tpot(_) => (secs || ms).then_some(if ms { 1.0 } else { 1000.0 }),
    };
    ok.ok_or(format!("unit {unit:?} does not fit this column"))
}

/// Splits "5.258 / 7.298 / 7.407 s" into the numbers and the unit.
fn numbers_and_unit(cell: &str, n: usize) -> Result<(Vec<String>, Option<String>), String> {
    let parts: Vec<&str> = if n > 1 {
        cell.split(" / ").map(str::trim).collect()
    } else {
        vec![cell.trim()]
    };
    if parts.len() != n {
        return Err(format!(
            "{} value(s) where the header names {n}",
            parts.len()
        ));
    }
    let mut nums = Vec::new();
    let mut unit = None;
    for (i, p) in parts.iter().enumerate() {
        let mut w = p.split_whitespace();
        let num = w.next().unwrap_or("").to_string();
        let rest: Vec<&str> = w.collect();
        if !rest.is_empty() {
            if i + 1 != parts.len() && n > 1 {
                return Err("a unit only after the last value".into());
            }
            unit = Some(rest.join(" "));
        }
        nums.push(num);
    }
    Ok((nums, unit))
}

fn result_cell(cell: &str) -> Result<CellValue, String> {
    let lc = cell.to_ascii_lowercase();
    let first = lc.split_whitespace().next().unwrap_or("");
    let (w, of) = first
        .split_once('/')
        .ok_or("expected \"<n>/<m> within limits\"")?;
    let num = |s: &str| -> Result<u64, String> {
        Decimal::parse(s)
            .and_then(|d| d.as_u64())
            .ok_or(format!("{s:?} is not a whole number"))
    };
    if !lc.contains("within limits") {
        return Err("expected \"<n>/<m> within limits\"".into());
    }
    let before = |word: &str| -> Result<Option<u64>, String> {
        values::number_before(&lc, word)
            .map(|d| {
                d.as_u64()
                    .ok_or(format!("the {word} count is not a whole number"))
            })
            .transpose()
    };
    Ok(CellValue::Result {
        within: num(w)?,
        of: num(of)?,
        failed: before("failed")?,
        timed_out: before("timed")?,
        cancelled: before("cancelled")?,
    })
}

fn point_rows(t: &RawTable, origin: &str) -> Result<Vec<PointRow>, PublicationError> {
    overlong(t, origin, MEASURED)?;
    let columns: Vec<Column> = t.header.iter().map(|h| column(h)).collect();
    let Some(offered_at) = columns.iter().position(|c| *c == Column::Offered) else {
        return Err(PublicationError::MissingColumn {
            origin: origin.into(),
            what: MEASURED,
            line: t.line,
            column: "offered rate",
            header: t.header.clone(),
        });
    };
    for (h, c) in t.header.iter().zip(&columns) {
        if matches!(c, Column::Number(v) if v.is_empty()) {
            return Err(PublicationError::MissingColumn {
                origin: origin.into(),
                what: MEASURED,
                line: t.line,
                column: "percentile (p50, p95, p99) in a TTFT/TPOT",
                header: vec![h.clone()],
            });
        }
    }
    let mut out = Vec::new();
    for (line, cells) in &t.rows {
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        let bad = |column: &str, cell: &str, reason: String| PublicationError::BadCell {
            origin: origin.into(),
            line: *line,
            column: column.into(),
            cell: cell.into(),
            reason,
        };
        if cells.len() < t.header.len() || cells.iter().take(t.header.len()).any(|c| c.is_empty()) {
            let missing = t
                .header
                .iter()
                .enumerate()
                .find(|(i, _)| cells.get(*i).is_none_or(|c| c.is_empty()))
                .map(|(_, h)| h.clone())
                .unwrap_or_default();
            return Err(bad(&missing, "", "the cell is empty or missing".into()));
        }
        let oh = &t.header[offered_at];
        let ocell = &cells[offered_at];
        let (nums, unit) = numbers_and_unit(ocell, 1).map_err(|e| bad(oh, ocell, e))?;
        let offered =
            Decimal::parse(&nums[0]).ok_or_else(|| bad(oh, ocell, "not a number".into()))?;
        if let Some(u) = unit.or_else(|| header_unit(oh)) {
            unit_factor(Metric::CompletedRate, &u).map_err(|e| bad(oh, ocell, e))?;
        }
        let mut row = PointRow {
            line: *line,
            offered,
            cells: Vec::new(),
        };
        for (i, (h, c)) in t.header.iter().zip(&columns).enumerate() {
            let cell = &cells[i];
            match c {
                Column::Offered => {}
                Column::Result => row.cells.push(Cell {
                    column: h.clone(),
                    key: "result".into(),
                    value: result_cell(cell).map_err(|e| bad(h, cell, e))?,
                }),
                Column::Other => row.cells.push(Cell {
                    column: h.clone(),
                    key: slug(h),
                    value: CellValue::Unmapped(cell.clone()),
                }),
                Column::Number(metrics) => {
                    let (nums, unit) =
                        numbers_and_unit(cell, metrics.len()).map_err(|e| bad(h, cell, e))?;
                    let unit = unit.or_else(|| header_unit(h)).ok_or_else(|| {
                        bad(
                            h,
                            cell,
                            "no unit (request/s, tokens/s, s or ms) in the cell or the header"
                                .into(),
                        )
                    })?;
                    for (m, n) in metrics.iter().zip(nums) {
                        let value = Decimal::parse(&n)
                            .ok_or_else(|| bad(h, cell, format!("{n:?} is not a number")))?;
                        let factor = unit_factor(*m, &unit).map_err(|e| bad(h, cell, e))?;
                        row.cells.push(Cell {
                            column: h.clone(),
                            key: m.key(),
                            value: CellValue::Number {
                                metric: *m,
                                value,
                                factor,
                                unit: unit.clone(),
                            },
                        });
                    }
                }
            }
        }
        if let Some(prev) = out
            .iter()
            .find(|r: &&PointRow| r.offered.value == row.offered.value)
        {
            return Err(bad(
                oh,
                ocell,
                format!(
                    "the same offered rate is already published at line {}",
                    prev.line
                ),
            ));
        }
        out.push(row);
    }
    Ok(out)
}

/// The bundle digest stated in prose: a paragraph that mentions a bundle
/// and "SHA-256 <hex>".
fn bundle_digest(
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

#[cfg(test)]
mod tests;
