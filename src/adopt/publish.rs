//! `publish`: the claims and the write-up, computed from the run.
//!
//! The run is verified first (`verify::verify`, the record deriver
//! included); a point whose records cannot be read, or do not derive from
//! its result file, is refused. Each point's claims are its recomputed
//! metrics written with four significant digits (at least the three the
//! claim rule needs), `within_limits` exactly, and are written into
//! `qualification.json` (replacing the point's claims); the write-up's two
//! tables state the same numbers, and its pinned inputs the digests and
//! values the run records: the model, the engine and accelerator of the
//! engine attestations (read from their statements; `verify` checks their
//! signatures), the weights manifest (with its file count when the
//! manifest is under `manifests/`), the model config, the benchmark plan,
//! the SLO budgets, and every fact of the run. With `bundle`, the claims
//! must already be those in `qualification.json` (the bundle was sealed
//! after an earlier `publish`); nothing is written into the run and the
//! write-up also states the bundle's SHA-256.

use std::path::Path;

use serde_json::{json, Value};

use super::peer_deriver::PeerDeriver;
use super::runfile::{read_file, RunFile};
use super::writeup::{default_writeup, fill_template, MeasuredRow, PinnedRow, Statement};
use super::AdoptError;
use crate::attest::{inspect_envelope, EnginePredicate, Statement as InToto};
use crate::digest::Sha256Digest;
use crate::keys::{Role, TrustStore};
use crate::progress::NoProgress;
use crate::publication::slug;
use crate::run::metrics::PointMetrics;
use crate::run::qualification::{Qualification, MAX_SMALL_FILE};
use crate::verify;
use crate::verify::inputs::{Inputs, Policy};
use crate::verify::outcome::page::PageContext;

/// What `publish` is told.
#[derive(Default)]
pub struct PublishRequest<'a> {
    /// An existing write-up whose tables (and standard sentences) are
    /// replaced: its text and its name.
    pub template: Option<(&'a str, &'a str)>,
    /// The sealed bundle: its file name and SHA-256.
    pub bundle: Option<(&'a str, Sha256Digest)>,
    /// Verify the engine attestations' signatures with these roots.
    pub trust: Option<&'a TrustStore>,
}

/// What `publish` made.
#[derive(Debug, Clone)]
pub struct Published {
    /// The write-up.
    pub text: String,
    /// True when the claims were written into `qualification.json`.
    pub claims_written: bool,
    /// Rows of the pinned-inputs table.
    pub pinned_rows: usize,
    /// Points published.
    pub points: usize,
}

/// A value with four significant digits (and no exponent).
pub fn four_digits(v: f64) -> String {
    four_digits_to(v, usize::MAX)
}

/// The most decimals of a time in seconds a derived record supports: its
/// times are absolute (unix seconds near 1.7e9, whose doubles resolve
/// 2.4e-7 s), so a time between two of them is known to the microsecond,
/// not finer.
pub const TIME_DECIMALS_S: usize = 6;

/// [`four_digits`], with at most `decimals` decimals: no digit finer than
/// what the value is known to.
pub fn four_digits_to(v: f64, decimals: usize) -> String {
    let mag = if v == 0.0 {
        0
    } else {
        v.abs().log10().floor() as i32
    };
    let d = ((3 - mag).max(0) as usize).min(decimals);
    format!("{v:.d$}")
}

/// The claims of a point, from its recomputed metrics.
fn claims(name: &str, m: &PointMetrics) -> Result<Value, AdoptError> {
    let need_to = |what: &str, v: Option<f64>, decimals: usize| -> Result<String, AdoptError> {
        match v {
            Some(v) if v.is_finite() && v > 0.0 => Ok(four_digits_to(v, decimals)),
            _ => Err(AdoptError::Refused(format!(
                "point {name:?}: no {what} to publish (no ok request, or none with more than one output token)"
            ))),
        }
    };
    let need = |what: &str, v: Option<f64>| need_to(what, v, usize::MAX);
    // Times to the microsecond (TIME_DECIMALS_S): TTFT in s, TPOT in ms.
    let pcts = |what: &str, v: &[Option<f64>; 3], d: usize| -> Result<Value, AdoptError> {
        Ok(
            json!({"p50": need_to(what, v[0], d)?, "p95": need_to(what, v[1], d)?, "p99": need_to(what, v[2], d)?}),
        )
    };
    Ok(json!({
        "completed_rate": need("completed rate", m.completed_rate)?,
        "output_throughput": need("output throughput", m.output_throughput)?,
        "ttft_s": pcts("TTFT", &m.ttft_s, TIME_DECIMALS_S)?,
        "tpot_ms": pcts("TPOT", &m.tpot_ms, TIME_DECIMALS_S - 3)?,
        "within_limits": m.within_limits,
    }))
}

fn measured_row(offered: f64, requests: u64, m: &PointMetrics, c: &Value) -> MeasuredRow {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let three = |v: &Value| format!("{} / {} / {}", s(&v["p50"]), s(&v["p95"]), s(&v["p99"]));
    let mut result = format!("{}/{requests} within limits", m.within_limits);
    for (n, what) in [
        (m.errors, "failed"),
        (m.timeouts, "timed out"),
        (m.cancelled, "cancelled"),
    ] {
        if n > 0 {
            result.push_str(&format!(", {n} {what}"));
        }
    }
    MeasuredRow {
        point: None,
        offered: format!("{offered} request/s"),
        completed: format!("{} request/s", s(&c["completed_rate"])),
        throughput: format!("{} tokens/s", s(&c["output_throughput"])),
        ttft: format!("{} s", three(&c["ttft_s"])),
        tpot: format!("{} ms", three(&c["tpot_ms"])),
        result,
    }
}

/// The label whose slug is `name` (`benchmark-client-source` ->
/// "Benchmark client source").
fn label_of(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut c = words.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Labels the reader gives a meaning of their own.
const SPECIAL: [&str; 8] = [
    "model",
    "engine",
    "workload",
    "checkpoint-weights",
    "model-config",
    "benchmark-plan",
    "engine-image",
    "fleet-latency-budgets",
];

fn fact_rows(
    root: &Path,
    q: &Qualification,
    rows: &mut Vec<PinnedRow>,
    notes: &mut Vec<String>,
) -> Result<(), AdoptError> {
    for f in &q.facts {
        // A point's result file is checked as the point's source (its
        // records are derived from it): a row of its digest would be
        // backed only by the file the publisher put in the run. `run
        // import` records the fact itself, so this is the expected path,
        // not a warning.
        if f.pointer.is_none()
            && q.points
                .iter()
                .any(|p| p.source.as_ref().is_some_and(|s| s.file == f.file))
        {
            continue;
        }
        let bytes = read_file(root, &f.file, 1 << 30)?;
        let base = slug(&label_of(&f.name));
        if base != f.name || SPECIAL.contains(&f.name.as_str()) || f.name.starts_with("accelerator")
        {
            notes.push(format!(
                "fact {:?} has no row: its name is not a label's slug publish can write",
                f.name
            ));
            continue;
        }
        match &f.pointer {
            None => rows.push(PinnedRow {
                label: format!("{} SHA-256", label_of(&f.name)),
                value: Sha256Digest::of_bytes(&bytes).to_hex(),
            }),
            Some(ptr) => {
                let v: Value = serde_json::from_slice(&bytes)
                    .map_err(|e| AdoptError::Run(format!("fact {:?}: {}: {e}", f.name, f.file)))?;
                let value = match v.pointer(ptr) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => {
                        notes.push(format!(
                            "fact {:?} has no row: {} at {ptr} is not a string or a number",
                            f.name, f.file
                        ));
                        continue;
                    }
                };
                let commit = value.len() == 40 && value.bytes().all(|b| b.is_ascii_hexdigit());
                if f.name.ends_with("source") && !commit {
                    notes.push(format!(
                        "fact {:?} has no row: a \"source\" row states a 40-hex commit",
                        f.name
                    ));
                    continue;
                }
                rows.push(PinnedRow {
                    label: label_of(&f.name),
                    value,
                });
            }
        }
    }
    Ok(())
}

/// What every engine attestation says, which must agree for one row.
fn engine_rows(
    root: &Path,
    q: &Qualification,
    trust: Option<&TrustStore>,
) -> Result<Vec<PinnedRow>, AdoptError> {
    let mut seen: Option<(EnginePredicate, InToto)> = None;
    for e in &q.engines {
        let bytes = read_file(root, &e.attestation, 16 << 20).map_err(|_| {
            AdoptError::Run(format!(
                "engine {:?}: {} is not in the run; sign the engine attestation into it first (proofpack attest engine ... -o {})",
                e.id, e.attestation, e.attestation
            ))
        })?;
        let stmt = match trust {
            Some(t) => {
                crate::attest::verify_envelope(&bytes, t, Role::Engine, 1).map(|v| v.get().clone())
            }
            None => inspect_envelope(&bytes).map(|u| u.claimed),
        }
        .map_err(|err| AdoptError::Run(format!("{}: {err}", e.attestation)))?;
        let pred = EnginePredicate::from_statement(&stmt)
            .map_err(|err| AdoptError::Run(format!("{}: {err}", e.attestation)))?;
        if let Some((p0, s0)) = &seen {
            let same = p0.engine.name == pred.engine.name
                && p0.engine.version == pred.engine.version
                && p0.engine.image == pred.engine.image
                && p0.accelerator == pred.accelerator
                && p0.parallelism.get("tensor") == pred.parallelism.get("tensor")
                && p0.model == pred.model
                && ["weights.manifest", "config.json", "engine-image"]
                    .iter()
                    .all(|n| s0.subject(n) == stmt.subject(n));
            if !same {
                return Err(AdoptError::Refused(format!(
                    "{}: the engines do not attest the same engine, accelerator, model and subjects, so one pinned-inputs row cannot state them; write those rows by hand in a template",
                    e.attestation
                )));
            }
        } else {
            seen = Some((pred, stmt));
        }
    }
    let Some((p, s)) = seen else {
        return Ok(Vec::new());
    };
    let word = |w: &str| !w.is_empty() && !w.contains(char::is_whitespace) && !w.contains(',');
    if !word(&p.engine.name) || !word(&p.engine.version) || p.accelerator.name.contains(',') {
        return Err(AdoptError::Refused(format!(
            "the engine {:?} {:?} on {:?} cannot be written as one Engine row (a name and a version without spaces or commas)",
            p.engine.name, p.engine.version, p.accelerator.name
        )));
    }
    let image = s
        .subject("engine-image")
        .map_or(p.engine.image.clone(), |d| d.digest.prefixed());
    let mut rows = vec![
        PinnedRow {
            label: "Model".into(),
            value: q.model.clone(),
        },
        PinnedRow {
            label: "Engine".into(),
            value: format!("{} {}, image {image}", p.engine.name, p.engine.version),
        },
        PinnedRow {
            label: "Accelerator per engine".into(),
            value: {
                let n = p.accelerator.count;
                let gpus = format!(
                    "{}, {n} GPU{}",
                    p.accelerator.name,
                    if n == 1 { "" } else { "s" }
                );
                match p.parallelism.get("tensor") {
                    Some(t) => format!("{gpus}, tensor parallelism {t}"),
                    None => gpus,
                }
            },
        },
    ];
    if let Some(w) = s.subject("weights.manifest") {
        rows.push(match manifest_lines(root, &w.digest)? {
            // The shards when every file is one; otherwise every file
            // (and the shards among them, when there are any): each count
            // as the reader compares it.
            Some((n, shards)) => PinnedRow {
                label: "Checkpoint weights".into(),
                value: format!(
                    "{}; SHA-256 of the sorted path:sha256 manifest is {}",
                    match shards {
                        s if s == n => format!("{n} safetensors shards"),
                        0 => format!("{n} files"),
                        s => format!("{s} safetensors shards; {n} files"),
                    },
                    w.digest.to_hex()
                ),
            },
            None => PinnedRow {
                label: "Checkpoint weights SHA-256".into(),
                value: w.digest.to_hex(),
            },
        });
    }
    if let Some(c) = s.subject("config.json") {
        rows.push(PinnedRow {
            label: "Model config SHA-256".into(),
            value: c.digest.to_hex(),
        });
    }
    Ok(rows)
}

/// The files and the `.safetensors` files listed by the manifest under
/// `manifests/` whose SHA-256 is `d`.
fn manifest_lines(root: &Path, d: &Sha256Digest) -> Result<Option<(u64, u64)>, AdoptError> {
    let dir = root.join("manifests");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(None);
    };
    let mut names: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    names.sort();
    for p in names.iter().filter(|p| p.is_file()) {
        let bytes =
            crate::capped::read_capped(p, 1 << 30).map_err(|e| AdoptError::Run(e.to_string()))?;
        if Sha256Digest::of_bytes(&bytes) == *d {
            let c = crate::manifest::EntryCounter::of(&bytes);
            return Ok(Some((c.files(), c.shards())));
        }
    }
    Ok(None)
}

/// Whether the measured-points table names each point (a `Point` column,
/// contract section 9): only where two points have one offered rate, so
/// that the table can tell them apart. Their names are then written as
/// the run spells them, which a cell shows as written only in letters,
/// digits, `.`, `_` and `-`: other names are refused rather than
/// published as a cell that reads otherwise.
fn names_points(points: &[crate::run::qualification::Point]) -> Result<bool, AdoptError> {
    let shared = points
        .iter()
        .enumerate()
        .any(|(i, a)| points[..i].iter().any(|b| b.offered_rate == a.offered_rate));
    if !shared {
        return Ok(false);
    }
    let plain = |n: &str| {
        !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    if let Some(p) = points.iter().find(|p| !plain(&p.name)) {
        return Err(AdoptError::Usage(format!(
            "point {:?}: two points have one offered rate, so the measured-points table names each point in a \"Point\" column; a name written there is letters, digits, '.', '_' and '-' (rename the point in qualification.json)",
            p.name
        )));
    }
    Ok(true)
}

/// The measured-points table `publish` writes, as Markdown lines, from a
/// verification's recomputed rows: the one renderer of that table, so
/// that what `verify --table markdown` prints is what `publish` writes and
/// what `verify --publication` reads back. `Err` where a point has no
/// recomputed row or a metric has no value to publish.
pub fn measured_markdown(
    q: &crate::run::qualification::Qualification,
    rows: &[crate::run::metrics::PointRow],
) -> Result<Vec<String>, AdoptError> {
    let named = names_points(&q.points)?;
    let mut measured = Vec::new();
    for p in &q.points {
        let row = rows.iter().find(|r| r.name == p.name).ok_or_else(|| {
            AdoptError::Refused(format!(
                "point {:?}: its client records could not be read",
                p.name
            ))
        })?;
        let mut c = claims(&p.name, &row.metrics)?;
        sealed_where_agreeing(&mut c, &p.claims, &row.metrics);
        let mut m = measured_row(p.offered_rate, p.requests, &row.metrics, &c);
        m.point = named.then(|| p.name.clone());
        measured.push(m);
    }
    Ok(super::writeup::measured_table(&measured))
}

/// Replaces each computed claim of `c` by the run's own claim as written
/// where that one holds by the claim rule (the recomputed value `m` rounds
/// to it, with at least the significant digits a claim needs): the table
/// then states what the bundle was sealed with, and its `.sealed_claim`
/// checks hold.
fn sealed_where_agreeing(c: &mut Value, own: &crate::run::qualification::Claims, m: &PointMetrics) {
    use crate::run::qualification::{Claim, MIN_SIGNIFICANT_DIGITS};
    let mut put = |ptr: &str, claim: Option<&Claim>, actual: Option<f64>| {
        let holds = |claim: &Claim| {
            claim.significant_digits() >= MIN_SIGNIFICANT_DIGITS
                && actual.is_some_and(|a| claim.holds(a))
        };
        if let (Some(claim), Some(slot)) = (claim.filter(|c| holds(c)), c.pointer_mut(ptr)) {
            *slot = Value::from(claim.text.clone());
        }
    };
    put(
        "/completed_rate",
        own.completed_rate.as_ref(),
        m.completed_rate,
    );
    put(
        "/output_throughput",
        own.output_throughput.as_ref(),
        m.output_throughput,
    );
    for (key, pcts, values) in [
        ("ttft_s", &own.ttft_s, &m.ttft_s),
        ("tpot_ms", &own.tpot_ms, &m.tpot_ms),
    ] {
        if let Some(p) = pcts {
            put(&format!("/{key}/p50"), p.p50.as_ref(), values[0]);
            put(&format!("/{key}/p95"), p.p95.as_ref(), values[1]);
            put(&format!("/{key}/p99"), p.p99.as_ref(), values[2]);
        }
    }
}

/// Computes the claims and the write-up of the run at `root`.
pub fn publish(
    root: &Path,
    r: &PublishRequest<'_>,
) -> Result<(Published, Vec<String>), AdoptError> {
    let mut run = RunFile::load(root)?;
    let q = run.qualification()?;
    let named = names_points(&q.points)?;
    let page = PageContext {
        verified_at: crate::timefmt::rfc3339_utc_now(),
        ..PageContext::default()
    };
    let limits = crate::bundle::Limits::default();
    let inputs = Inputs {
        pins: None,
        trust: r.trust,
        publication: None,
        deriver: Some(&PeerDeriver),
        seal: None,
        limits: &limits,
        page: &page,
        policy: Policy::default(),
    };
    let v =
        verify::verify(root, &inputs, &NoProgress).map_err(|e| AdoptError::Run(e.to_string()))?;
    let mut measured = Vec::new();
    let mut changed = false;
    for (i, p) in q.points.iter().enumerate() {
        for c in ["records", "source", "derived"] {
            let id = format!("point:{}.{c}", p.name);
            if let Some(check) = v.report.get(&id).filter(|c| c.failed()) {
                return Err(AdoptError::Refused(format!(
                    "{id} fails: {}; nothing is published from evidence that does not hold (proofpack verify {} shows every check)",
                    check.detail,
                    root.display()
                )));
            }
        }
        let row = v
            .rows
            .iter()
            .find(|row| row.name == p.name)
            .ok_or_else(|| {
                AdoptError::Refused(format!(
                    "point {:?}: its client records could not be read",
                    p.name
                ))
            })?;
        let c = claims(&p.name, &row.metrics)?;
        let current = &run.doc["points"][i]["claims"];
        if *current != c {
            changed = true;
        }
        let mut m = measured_row(p.offered_rate, p.requests, &row.metrics, &c);
        m.point = named.then(|| p.name.clone());
        measured.push(m);
        run.point_mut(&p.name)?.insert("claims".into(), c);
    }
    if r.bundle.is_some() && changed {
        return Err(AdoptError::Refused(
            "the claims computed from the run differ from those in qualification.json, so the bundle does not hold them; run publish without --bundle, seal the run, then publish --bundle".into(),
        ));
    }
    let mut notes = Vec::new();
    let mut pinned = engine_rows(root, &q, r.trust)?;
    if let Some(plan) = &q.plan {
        let bytes = read_file(root, plan, MAX_SMALL_FILE)?;
        pinned.push(PinnedRow {
            label: "Benchmark plan SHA-256".into(),
            value: Sha256Digest::of_bytes(&bytes).to_hex(),
        });
    }
    pinned.push(PinnedRow {
        label: "Fleet latency budgets".into(),
        value: format!("{} s TTFT, {} s TPOT", q.slo.ttft_s, q.slo.tpot_s),
    });
    fact_rows(root, &q, &mut pinned, &mut notes)?;
    // The standard sentences that hold of the run, each checked by
    // verify itself before it is written.
    let mut statements =
        super::sentences::holding(root, &inputs, super::sentences::candidates(&v), |st| {
            default_writeup(&pinned, &measured, st)
        });
    if let Some((name, digest)) = r.bundle {
        statements.push(Statement {
            stem: "The sealed bundle is ",
            text: format!("The sealed bundle is {name} (SHA-256 {}).", digest.to_hex()),
        });
    }
    let text = match r.template {
        None => default_writeup(&pinned, &measured, &statements),
        Some((t, origin)) => fill_template(t, origin, &pinned, &measured, &statements)?,
    };
    let claims_written = changed && r.bundle.is_none();
    if claims_written {
        run.save()?;
    }
    Ok((
        Published {
            text,
            claims_written,
            pinned_rows: pinned.len(),
            points: measured.len(),
        },
        notes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_has_no_digit_finer_than_the_derivation_knows() {
        // A sub-millisecond TTFT: four significant digits would publish
        // the 1e-7 s digit, which times anchored near 1.7e9 s cannot
        // support (their doubles resolve 2.4e-7 s).
        assert_eq!(four_digits(0.00068055), "0.0006806");
        assert_eq!(four_digits_to(0.00068055, TIME_DECIMALS_S), "0.000681");
        // Ordinary values keep their four digits.
        assert_eq!(four_digits_to(0.1874, TIME_DECIMALS_S), "0.1874");
        assert_eq!(four_digits_to(13.694, TIME_DECIMALS_S - 3), "13.69");
        assert_eq!(four_digits_to(0.01234567, TIME_DECIMALS_S - 3), "0.012");
    }
}
