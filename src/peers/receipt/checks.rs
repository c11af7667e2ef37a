//! The checks of `receipt.json` on its own (no file system), one function
//! per check id: `receipt.transport_digest`, `.contract`, `.id`, `.source`,
//! `.points`, `.artifacts`, and the anchor `receipt.pin`.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::canonical::canonical;
use super::model::{is_digest, positive, run_id, safe_path, Artifact, Point, Receipt};
use crate::digest::Sha256Digest;
use crate::report::Check;

/// A pass when there are no problems, else one failure listing them.
pub(super) fn outcome(id: &str, problems: Vec<String>, good: &str) -> Check {
    if problems.is_empty() {
        Check::pass(id, good)
    } else {
        Check::fail(id, problems.join("; "))
    }
}

fn lower_hex64(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `receipt.transport_digest`: `receipt.sha256` names the bytes' SHA-256.
pub fn transport_digest(actual: &str, sha_text: Option<&[u8]>) -> Check {
    const ID: &str = "receipt.transport_digest";
    let Some(t) = sha_text else {
        return Check::fail(
            ID,
            "receipt.sha256 is missing: the receipt's transport digest cannot be compared",
        );
    };
    let text = String::from_utf8_lossy(t);
    let token = text.split_whitespace().next().unwrap_or("");
    if !lower_hex64(token) {
        return Check::fail(
            ID,
            "receipt.sha256 does not hold a 64-character lowercase hex SHA-256",
        );
    }
    Check::outcome(
        ID,
        token == actual,
        format!("SHA-256 of receipt.json is {actual}; receipt.sha256 says {token}"),
    )
    .with_values(json!(token), json!(actual))
}

/// `receipt.contract`: kind, version and contracts.
pub fn contract(r: &Receipt) -> Check {
    let mut p = Vec::new();
    if r.kind.str() != Some("source-measurement-receipt") {
        p.push("kind is not \"source-measurement-receipt\"".to_string());
    }
    if r.version.get() != Some(&1) {
        p.push("version is not 1".into());
    }
    let c = r.contracts.get();
    for (k, want) in [
        ("publication", json!(1)),
        ("normalized", json!("agentx-v1")),
        ("raw", json!("aiperf-1.4")),
    ] {
        if c.and_then(|c| c.get(k)) != Some(&want) {
            p.push(format!("contracts.{k} is not {want}"));
        }
    }
    outcome("receipt.contract", p, "kind source-measurement-receipt, version 1, contracts raw aiperf-1.4, normalized agentx-v1, publication 1")
}

/// `receipt.id`: `receipt_id` is the SHA-256 of the canonical receipt
/// without it. `v` is the receipt as read (an object).
pub fn receipt_id(v: &Value, r: &Receipt) -> Check {
    const ID: &str = "receipt.id";
    let mut payload = v.as_object().cloned().unwrap_or_default();
    payload.remove("receipt_id");
    let text = match canonical(&Value::Object(payload)) {
        Err(why) => return Check::fail(ID, why),
        Ok(t) => t,
    };
    let mine = Sha256Digest::of_bytes(text.as_bytes()).to_hex();
    if !is_digest(&r.receipt_id) {
        return Check::fail(ID, "receipt_id is not a 64-character lowercase hex SHA-256");
    }
    let said = r.receipt_id.str().unwrap_or("");
    Check::outcome(ID, said == mine, format!("receipt_id = SHA-256 of the canonical JSON without receipt_id (keys sorted, no whitespace) = {mine}; the receipt says {said}")).with_values(json!(said), json!(mine))
}

/// `receipt.source`: repository, source run, attempt and bundle digest.
pub fn source(r: &Receipt) -> Check {
    let mut p = Vec::new();
    let repo_ok = r.repository.str().is_some_and(|r| {
        let parts: Vec<&str> = r.split('/').collect();
        parts.len() == 2
            && parts.iter().all(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
            })
    });
    if !repo_ok {
        p.push("repository is not OWNER/NAME".to_string());
    }
    if !run_id(&r.source_run_id) {
        p.push("source_run_id is not a positive decimal string".into());
    }
    if !positive(&r.source_attempt) {
        p.push("source_attempt is not a positive integer".into());
    }
    if !is_digest(&r.bundle_digest) {
        p.push("bundle_digest is not a SHA-256".into());
    }
    outcome(
        "receipt.source",
        p,
        "repository, source run, attempt and bundle digest well formed",
    )
}

/// The problems of one point.
fn point_problems(at: &str, pt: &Point, seen: &mut BTreeSet<String>) -> (Vec<String>, Vec<u64>) {
    let mut p = Vec::new();
    let id = pt.point_id.str().unwrap_or("");
    if !is_digest(&pt.point_id) || !seen.insert(id.to_string()) {
        p.push(format!("{at}: point_id missing, not a SHA-256 or repeated"));
    }
    if !is_digest(&pt.bundle_digest)
        || pt.execution_id.str().is_none_or(str::is_empty)
        || !positive(&pt.concurrency)
        || !positive(&pt.source_attempt)
        || !run_id(&pt.source_run_id)
    {
        p.push(format!("{at}: bundle_digest, execution_id, concurrency, source_attempt or source_run_id invalid"));
    }
    let kind = pt.kind.str();
    if !matches!(kind, Some("throughput" | "eval")) {
        p.push(format!("{at}: kind is not throughput or eval"));
    }
    let t = pt.topology.or_default();
    if t.kind.str() != Some("aggregate")
        || t.nodes.get() != Some(&1)
        || !(positive(&t.tp) && positive(&t.ep) && positive(&t.serving_gpus))
    {
        p.push(format!(
            "{at}: unsupported topology (aggregate, 1 node, positive tp, ep, serving_gpus)"
        ));
    }
    let listed = pt.artifact_ids.items();
    let ids: Vec<u64> = listed.iter().filter_map(Value::as_u64).collect();
    let uniq: BTreeSet<u64> = ids.iter().copied().collect();
    let has = |v: &super::model::Loose<u64>| v.get().is_some_and(|x| uniq.contains(x));
    let path_ok = |v: &super::model::Loose<String>| v.str().is_some_and(safe_path);
    if ids.is_empty()
        || ids.len() != listed.len()
        || uniq.len() != ids.len()
        || ids.contains(&0)
        || !has(&pt.normalized_artifact_id)
        || !path_ok(&pt.normalized_path)
        || pt.required_metrics.get().is_none_or(Vec::is_empty)
    {
        p.push(format!(
            "{at}: artifact ids, normalized artifact/path or required_metrics invalid"
        ));
    }
    if !has(&pt.execution_artifact_id)
        || !path_ok(&pt.execution_path)
        || !is_digest(&pt.native_manifest_sha256)
        || pt.config.get().is_none_or(|m| m.is_empty())
    {
        p.push(format!(
            "{at}: execution artifact/path, native_manifest_sha256 or config missing"
        ));
    }
    let fmt = pt.normalized_format.str();
    if !matches!(fmt, Some("normalized" | "lm-eval"))
        || (fmt == Some("lm-eval") && (kind != Some("eval") || !path_ok(&pt.metadata_path)))
    {
        p.push(format!(
            "{at}: invalid normalized_format or its metadata_path"
        ));
    }
    if kind == Some("eval")
        && (pt.task.str().is_none_or(str::is_empty)
            || !positive(&pt.sample_count)
            || pt.filters.get().is_none_or(Vec::is_empty)
            || !has(&pt.samples_artifact_id)
            || !path_ok(&pt.samples_path))
    {
        p.push(format!("{at}: eval point without its sample contract (task, sample_count, filters, samples artifact and path)"));
    }
    (p, uniq.into_iter().collect())
}

/// `receipt.points`, and the artifact ids the points name.
pub fn points(r: &Receipt) -> (Check, BTreeSet<u64>) {
    let mut p = Vec::new();
    let mut required = BTreeSet::new();
    match r.points.get() {
        None => p.push("points is not an array".to_string()),
        Some(a) if a.is_empty() => p.push("points is empty".into()),
        Some(a) => {
            let mut seen = BTreeSet::new();
            for (i, pt) in a.iter().enumerate() {
                let (mut problems, ids) =
                    point_problems(&format!("points[{i}]"), &pt.or_default(), &mut seen);
                p.append(&mut problems);
                required.extend(ids);
            }
        }
    }
    (
        outcome("receipt.points", p, "every point well formed, ids unique"),
        required,
    )
}

/// The problems of one artifact against the points that name it.
fn artifact_problems(
    at: &str,
    a: &Artifact,
    points: &[Point],
    required: &BTreeSet<u64>,
    ids: &mut BTreeSet<u64>,
    names: &mut BTreeSet<String>,
) -> Vec<String> {
    let mut p = Vec::new();
    let id = a.id.get().copied().unwrap_or(0);
    let name = a.name.str().unwrap_or("");
    let name_ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
    if !positive(&a.id)
        || !ids.insert(id)
        || !required.contains(&id)
        || !is_digest(&a.sha256)
        || !name_ok
        || !names.insert(name.to_string())
    {
        p.push(format!(
            "{at}: id, name or sha256 invalid, repeated, or not named by any point"
        ));
    }
    let mut members = BTreeSet::new();
    match a.members.get() {
        None => p.push(format!("{at}: members is not an array")),
        Some(ms) => {
            for m in ms.iter().map(|m| m.or_default()) {
                let path = m.path.str().unwrap_or("");
                let size_ok = m.size.get().is_some_and(|s| *s < (1 << 53));
                if !safe_path(path)
                    || !members.insert(path.to_string())
                    || !is_digest(&m.sha256)
                    || !size_ok
                {
                    p.push(format!(
                        "{at}: member {path:?}: unsafe or repeated path, or invalid sha256 or size"
                    ));
                }
            }
        }
    }
    for pt in points.iter().filter(|pt| pt.names_artifact(id)) {
        if pt.source_run_id.raw() != a.run_id.raw() {
            p.push(format!(
                "{at}: run_id differs from its point's source_run_id"
            ));
        }
        for (artifact, path, pathk) in [
            (
                &pt.execution_artifact_id,
                &pt.execution_path,
                "execution_path",
            ),
            (
                &pt.normalized_artifact_id,
                &pt.normalized_path,
                "normalized_path",
            ),
            (
                &pt.normalized_artifact_id,
                &pt.metadata_path,
                "metadata_path",
            ),
            (&pt.samples_artifact_id, &pt.samples_path, "samples_path"),
        ] {
            if artifact.get() == Some(&id) {
                if let Some(path) = path.str() {
                    if !members.contains(path) {
                        p.push(format!("{at}: {pathk} {path:?} is not one of its members"));
                    }
                }
            }
        }
    }
    p
}

/// `receipt.artifacts`: each artifact owned by its points and listing the
/// files they name.
pub fn artifacts(r: &Receipt, required: &BTreeSet<u64>) -> Check {
    let points: Vec<Point> = r.points.items().iter().map(|p| p.or_default()).collect();
    let Some(arts) = r.artifacts.get() else {
        return Check::fail("receipt.artifacts", "artifacts is not an array");
    };
    let mut p = Vec::new();
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    for (i, a) in arts.iter().enumerate() {
        let at = format!("artifacts[{i}]");
        p.append(&mut artifact_problems(
            &at,
            &a.or_default(),
            &points,
            required,
            &mut ids,
            &mut names,
        ));
    }
    if ids.len() != required.len() {
        p.push(format!(
            "the artifacts ({}) are not every artifact the points name ({})",
            ids.len(),
            required.len()
        ));
    }
    outcome(
        "receipt.artifacts",
        p,
        "artifacts well formed, each owned by its points and listing their files",
    )
}

/// `receipt.pin`: the receipt's published digest, given with
/// `--pin`, is the SHA-256 of `receipt.json`'s bytes or its `receipt_id`.
/// Without a pin nothing outside the receipt anchors it: anyone can change
/// a file and re-derive every digest, so the check is not asked for and
/// the verdict says "unpinned".
pub fn pin(pin: Option<&str>, actual: &str, r: &Receipt) -> Check {
    const ID: &str = "receipt.pin";
    let Some(pin) = pin else {
        return Check::skip(ID, "no --pin given: nothing outside the receipt anchors it (whoever holds the directory can change any file and re-derive every digest, receipt_id and receipt.sha256 included); pass the receipt's published SHA-256 with --pin");
    };
    let id = r.receipt_id.str().unwrap_or("");
    if pin == actual {
        Check::pass(
            ID,
            format!("--pin {pin} is the SHA-256 of receipt.json's bytes"),
        )
    } else if pin == id {
        Check::pass(
            ID,
            format!("--pin {pin} is the receipt's receipt_id (receipt.id ties the content to it)"),
        )
    } else {
        Check::fail(
            ID,
            format!("--pin {pin} is neither the SHA-256 of receipt.json ({actual}) nor its receipt_id ({id}): this is not the receipt that was published"),
        )
        .with_values(json!(pin), json!(actual))
    }
}
