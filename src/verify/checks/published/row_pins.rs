//! `pins from-publication`: the pins a publication states (digests and
//! commits, and the bundle digest of its prose) and, row by row, what each
//! became.

use serde_json::json;

use crate::publication::{Pinned, Publication};

/// What `pins from-publication` made of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowPins {
    /// The row's line.
    pub line: usize,
    /// The row's label (or "bundle" for the prose's bundle digest).
    pub label: String,
    /// The pins it became.
    pub pins: Vec<serde_json::Value>,
    /// Why it became no pin (or what of it is not a pin).
    pub note: Option<String>,
}

/// The pin name of a digest row (the name `verify --pins` checks it under).
fn digest_pin_name(slug: &str, counted: bool) -> String {
    let base = slug
        .trim_end_matches("-sha-256")
        .trim_end_matches("-sha256");
    match base {
        _ if counted => "weights.manifest".into(),
        "checkpoint-weights" | "weights" | "weights-manifest" | "checkpoint" => {
            "weights.manifest".into()
        }
        "model-config" | "config" | "config-json" => "config.json".into(),
        "engine-image" | "image" => "engine-image".into(),
        other => other.into(),
    }
}

/// True if the publication states at least one pin (a digest, a commit or
/// the bundle digest): without one the verdict is unpinned.
pub fn publication_has_pins(p: &Publication) -> bool {
    p.bundle.is_some()
        || p.pinned.iter().any(|r| {
            matches!(r.kind, Pinned::Digest { .. } | Pinned::Commit(_))
                || matches!(&r.kind, Pinned::Engine { image: Some(_), .. })
        })
}

/// The pins a publication states (`proofpack/pins/v1`, value pins for
/// commits), and row by row what each became.
pub fn pins_from_publication(p: &Publication) -> (serde_json::Value, Vec<RowPins>) {
    let mut rows = Vec::new();
    let mut all = Vec::new();
    for r in &p.pinned {
        let (pins, note) = match &r.kind {
            Pinned::Digest {
                digest,
                files,
                shards,
            } => {
                let counted = files.is_some() || shards.is_some();
                let mut pin = json!({"name": digest_pin_name(&r.slug, counted), "sha256": digest.to_hex()});
                if let Some(f) = files {
                    pin["files"] = json!(f);
                }
                if let Some(s) = shards {
                    pin["shards"] = json!(s);
                }
                (vec![pin], None)
            }
            Pinned::Engine { image, .. } => (
                image
                    .iter()
                    .map(|d| json!({"name": "engine-image", "sha256": d.to_hex()}))
                    .collect(),
                Some("the engine name and version are checked by verify --publication, not a pin".to_string()),
            ),
            Pinned::Commit(c) => (vec![json!({"name": r.slug, "value": c})], None),
            Pinned::Model(_) | Pinned::Accelerator { .. } | Pinned::Budgets { .. } | Pinned::Workload(_) => (
                Vec::new(),
                Some("not a digest or commit: checked by verify --publication".to_string()),
            ),
            Pinned::Text => (
                Vec::new(),
                Some("not a digest or commit, and a label proofpack does not know: verify --publication checks it against a fact of this name, if the run declares one".to_string()),
            ),
        };
        all.extend(pins.iter().cloned());
        rows.push(RowPins {
            line: r.line,
            label: r.label.clone(),
            pins,
            note,
        });
    }
    if let Some((d, line)) = p.bundle {
        let pin = json!({"name": "bundle", "sha256": d.to_hex()});
        all.push(pin.clone());
        rows.push(RowPins {
            line,
            label: "bundle (stated in prose)".into(),
            pins: vec![pin],
            note: None,
        });
    }
    // One pin per name: a row stating the same value twice is one pin; two
    // values under one name stay two, and the pins file then refuses them.
    let mut seen = Vec::new();
    all.retain(|p| {
        let keep = !seen.contains(p);
        seen.push(p.clone());
        keep
    });
    (
        json!({"schema": crate::run::qualification::PINS_SCHEMA, "pins": all}),
        rows,
    )
}
