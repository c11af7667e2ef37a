//! The pinned-inputs rows: each label ("Engine", "... SHA-256", "Workload",
//! "Latency budgets", ...) mapped to the kind of value it pins, and the
//! value parsed; a label proofpack does not know is kept as text.

use crate::digest::Sha256Digest;

use super::find::{overlong, PINNED};
use super::markdown::RawTable;
use super::{slug, values, Decimal, Pinned, PinnedRow, PublicationError, Workload};

pub(super) fn pinned_rows(t: &RawTable, origin: &str) -> Result<Vec<PinnedRow>, PublicationError> {
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
