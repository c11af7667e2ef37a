//! The pinned-inputs rows: each label matched against [`LABELS`] (the
//! closed list of labels proofpack knows, each with the closed grammar of
//! its value in [`grammar`]), and the value consumed completely by that
//! grammar or the write-up refused. A label proofpack does not know is
//! kept as text ([`Pinned::Text`]): its row is checked only against a fact
//! the publisher declares, and said so.

use super::document::Table;
use super::grammar::{self, Slot};
use super::types::{Pinned, PinnedRow, PublicationError, Workload};
use super::values::{slug, Decimal};

/// How a label is matched (any case, runs of white space as one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelMatch {
    /// The whole label.
    Is(&'static str),
    /// The label's last words.
    EndsWith(&'static str),
}

/// What a known label pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelKind {
    /// "Checkpoint weights": shard count and weights manifest digest.
    Weights,
    /// "Engine".
    Engine,
    /// "Accelerator per engine".
    Accelerator,
    /// "Model".
    Model,
    /// "... latency budgets".
    Budgets,
    /// "Workload".
    Workload,
    /// "... SHA-256": a digest.
    Digest,
    /// "... source": a commit.
    Commit,
}

/// Every label proofpack knows, in the order they are tried, with the
/// forms of its value: (label, kind, first-part forms, further-part forms).
pub const LABELS: &[(LabelMatch, LabelKind, &[&str], &[&str])] = &[
    (
        LabelMatch::Is("Checkpoint weights"),
        LabelKind::Weights,
        &[],
        grammar::WEIGHTS_FORMS,
    ),
    (
        LabelMatch::Is("Engine"),
        LabelKind::Engine,
        grammar::ENGINE_FIRST,
        grammar::ENGINE_FORMS,
    ),
    (
        LabelMatch::Is("Accelerator per engine"),
        LabelKind::Accelerator,
        grammar::ACCELERATOR_FIRST,
        grammar::ACCELERATOR_FORMS,
    ),
    (
        LabelMatch::Is("Model"),
        LabelKind::Model,
        grammar::MODEL_FORMS,
        &[],
    ),
    (
        LabelMatch::EndsWith("latency budgets"),
        LabelKind::Budgets,
        &[],
        grammar::BUDGET_FORMS,
    ),
    (
        LabelMatch::Is("Workload"),
        LabelKind::Workload,
        &[],
        grammar::WORKLOAD_FORMS,
    ),
    (
        LabelMatch::EndsWith("SHA-256"),
        LabelKind::Digest,
        grammar::DIGEST_FORMS,
        &[],
    ),
    (
        LabelMatch::EndsWith("source"),
        LabelKind::Commit,
        grammar::COMMIT_FORMS,
        &[],
    ),
];

fn label_is(label: &str, m: LabelMatch) -> bool {
    let l = label.to_lowercase();
    match m {
        LabelMatch::Is(w) => l == w.to_lowercase(),
        LabelMatch::EndsWith(w) => {
            let w = w.to_lowercase();
            l == w || l.ends_with(&format!(" {w}"))
        }
    }
}

pub(super) fn pinned_rows(t: &Table, origin: &str) -> Result<Vec<PinnedRow>, PublicationError> {
    let mut out: Vec<PinnedRow> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for row in &t.rows {
        let text = |i: usize| row.cells.get(i).map_or(String::new(), |c| c.text.clone());
        let (label, value) = (text(0), text(1));
        if row.cells.iter().all(|c| c.text.is_empty()) {
            continue;
        }
        let bad = |reason: String| PublicationError::BadRow {
            origin: origin.into(),
            line: row.line,
            label: label.clone(),
            reason,
        };
        if label.is_empty() {
            return Err(bad("the row has no label".into()));
        }
        if value.is_empty() {
            let hint = if row.cells.iter().skip(1).all(|c| c.text.is_empty())
                && !label.contains('|')
            {
                " (a line right after a table is one more row of it, as GitHub shows it: put a blank line between a table and the prose after it)"
            } else {
                ""
            };
            return Err(bad(format!("the row has no value{hint}")));
        }
        let slug = slug(&label);
        if let Some(prev) = seen.insert(slug.clone(), row.line) {
            return Err(bad(format!(
                "the same input is already published at line {prev}"
            )));
        }
        let kind = pinned_kind(&label, &value).map_err(bad)?;
        let extra = t
            .header
            .iter()
            .zip(row.cells.iter())
            .skip(2)
            .filter(|(_, c)| !c.text.is_empty())
            .map(|(h, c)| (h.text.clone(), c.text.clone()))
            .collect();
        out.push(PinnedRow {
            label,
            slug,
            value,
            line: row.line,
            kind,
            extra,
        });
    }
    Ok(out)
}

fn num(s: &Slot) -> Decimal {
    match s {
        Slot::Num(d) => d.clone(),
        _ => unreachable!("a <num> or <int> slot holds a number"),
    }
}

fn whole(s: &Slot) -> u64 {
    num(s).as_u64().unwrap_or(0)
}

fn text(s: &Slot) -> String {
    match s {
        Slot::Text(t) | Slot::Hex(t) => t.clone(),
        Slot::Count(_, w) => w.clone(),
        Slot::Num(d) => d.text.clone(),
        Slot::Time(f) => f.to_string(),
    }
}

fn time(num_slot: &Slot, unit: &Slot) -> (Decimal, f64) {
    let f = match unit {
        Slot::Time(f) => *f,
        _ => 1.0,
    };
    (num(num_slot), f)
}

fn digest(hex: &str) -> Result<crate::digest::Sha256Digest, String> {
    crate::digest::Sha256Digest::parse_hex(hex).map_err(|e| e.to_string())
}

fn pinned_kind(label: &str, value: &str) -> Result<Pinned, String> {
    let Some((_, kind, first, rest)) = LABELS.iter().find(|(m, ..)| label_is(label, *m)) else {
        return Ok(Pinned::Text);
    };
    let (lead, parts) = grammar::read_parts(value, first, rest)?;
    let lead = lead.unwrap_or_default();
    let part = |k: usize| parts.iter().find(|p| p.form == k).map(|p| &p.slots);
    Ok(match kind {
        LabelKind::Digest => Pinned::Digest {
            digest: digest(&text(&lead[0]))?,
            files: None,
            shards: None,
        },
        LabelKind::Commit => Pinned::Commit(text(&lead[0])),
        LabelKind::Model => Pinned::Model(text(&lead[0])),
        LabelKind::Weights => {
            let d = part(1).ok_or(
                "expected \"<n> safetensors shards; SHA-256 of the sorted path:sha256 manifest is <hex>\"",
            )?;
            Pinned::Digest {
                digest: digest(&text(&d[0]))?,
                files: part(2).map(|s| whole(&s[0])),
                shards: part(0).map(|s| whole(&s[0])),
            }
        }
        LabelKind::Engine => Pinned::Engine {
            name: text(&lead[0]),
            version: text(&lead[1]),
            image: part(0).map(|s| digest(&text(&s[0]))).transpose()?,
        },
        LabelKind::Accelerator => {
            if part(0).is_some() && part(2).is_some() {
                return Err("the GPU count is stated twice".into());
            }
            Pinned::Accelerator {
                name: text(&lead[0]),
                // "<count> GPUs", or "<count> GPU" (one GPU).
                count: part(0).or_else(|| part(2)).map(|s| match &s[0] {
                    Slot::Count(n, w) => (*n, w.clone()),
                    other => (0, text(other)),
                }),
                tensor: part(1).map(|s| whole(&s[0])),
            }
        }
        LabelKind::Budgets => {
            let pick = |a: usize, b: usize| {
                part(a)
                    .map(|s| time(&s[0], &s[1]))
                    .or_else(|| part(b).map(|s| time(&s[0], &s[1])))
            };
            if part(0).is_some() && part(1).is_some() || part(2).is_some() && part(3).is_some() {
                return Err("a budget is stated twice".into());
            }
            Pinned::Budgets {
                ttft: pick(0, 1),
                tpot: pick(2, 3),
                deadline: part(4).map(|s| time(&s[0], &s[1])),
            }
        }
        LabelKind::Workload => Pinned::Workload(Workload {
            input_tokens: part(0).map(|s| whole(&s[0])),
            output_tokens: part(1).map(|s| whole(&s[0])),
            seed: part(2).map(|s| num(&s[0])),
            temperature: part(3).map(|s| num(&s[0])),
            prefix_caching: part(4).map(|s| text(&s[0]) == "enabled"),
            distinct_ids: part(5).map(|s| whole(&s[0])),
            pool: part(5).map(|s| whole(&s[1])),
        }),
    })
}
