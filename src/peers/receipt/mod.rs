//! InferenceX "source measurement receipts" (`receipt.json`,
//! `receipt.sha256`, one folder per artifact), verified by the rules of
//! SemiAnalysisAI/InferenceX-app `packages/db/src/lib/measurement-receipt.ts`
//! (`parseMeasurementReceipt`, `verifyMeasurementSnapshot`, read at commit
//! 481a862) and its fixture `fixtures/measurement-receipt/`; see
//! docs/peers.md. Each rule is its own check, so that every kind of tamper
//! names itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::digest::{hash_file, Sha256Digest};
use crate::progress::NoProgress;
use crate::report::{Check, Report};
use crate::strictjson::reject_duplicate_json_keys;

/// Largest `receipt.json` read.
pub const MAX_RECEIPT: u64 = 16 << 20;
/// Most files and folders walked under one artifact folder.
pub const MAX_ENTRIES: usize = 100_000;

/// Why a receipt could not be verified at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiptError {
    /// `receipt.json` or `receipt.sha256` could not be read (unreadable, or
    /// over its size limit).
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause, as the reader states it.
        message: String,
    },
    /// `receipt.json` is not JSON (or repeats a key, or is too large).
    #[error("{}: not a JSON receipt: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The argument is not a directory holding `receipt.json`.
    #[error("{}: not a receipt directory (no receipt.json)", path.display())]
    NotAReceipt {
        /// The directory.
        path: PathBuf,
    },
}

fn is_digest(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| {
        s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn positive(v: Option<&Value>) -> bool {
    v.and_then(Value::as_u64)
        .is_some_and(|n| n > 0 && n < (1 << 53))
}

fn run_id(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str).is_some_and(|s| {
        !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The receipt's rule for a member or artifact path.
pub fn safe_path(p: &str) -> bool {
    let drive = p.len() >= 2 && p.as_bytes()[0].is_ascii_alphabetic() && p.as_bytes()[1] == b':';
    let bad = p.is_empty() || p.contains('\\') || p.contains('\0') || p.starts_with('/') || drive;
    !bad && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

fn js_string(s: &str, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The receipt's canonical JSON (`canonical()` of measurement-receipt.ts):
/// object keys sorted as JavaScript sorts strings (UTF-16 code units), no
/// whitespace, strings as `JSON.stringify` writes them, and only safe
/// integers as numbers.
pub fn canonical(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    canon_into(v, &mut out)?;
    Ok(out)
}

/// [`canonical`] of JSON text (strict: repeated keys refused).
pub fn canonical_bytes(bytes: &[u8]) -> Result<String, String> {
    reject_duplicate_json_keys(bytes).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    canonical(&v)
}

fn canon_into(v: &Value, out: &mut String) -> Result<(), String> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let safe = n
                .as_i64()
                .filter(|i| i.unsigned_abs() < (1 << 53))
                .map(|i| i.to_string())
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
                        .map(|f| format!("{}", f as i64))
                });
            match safe {
                Some(s) => out.push_str(&s),
                None => return Err(format!("receipt numbers must be safe integers; {n} is not")),
            }
        }
        Value::String(s) => js_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canon_into(x, out)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                js_string(k, out);
                out.push(':');
                canon_into(&m[*k], out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn outcome(id: &str, problems: Vec<String>, good: &str) -> Check {
    if problems.is_empty() {
        Check::pass(id, good)
    } else {
        Check::fail(id, problems.join("; "))
    }
}

/// The checks of `receipt.json`'s bytes on their own (no file system):
/// transport digest, contract, receipt id, source, points, artifacts.
/// `sha_text` is `receipt.sha256`'s content, if present.
pub fn check_receipt_bytes(
    bytes: &[u8],
    sha_text: Option<&[u8]>,
) -> Result<(Vec<Check>, Value), String> {
    reject_duplicate_json_keys(bytes).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if !v.is_object() {
        return Err("receipt.json is not a JSON object".into());
    }
    let mut out = Vec::new();
    let actual = Sha256Digest::of_bytes(bytes).to_hex();
    out.push(match sha_text {
        None => Check::fail(
            "receipt.transport_digest",
            "receipt.sha256 is missing: the receipt's transport digest cannot be compared",
        ),
        Some(t) => {
            let text = String::from_utf8_lossy(t);
            let token = text.split_whitespace().next().unwrap_or("");
            let good = token.len() == 64
                && token
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !good {
                Check::fail(
                    "receipt.transport_digest",
                    "receipt.sha256 does not hold a 64-character lowercase hex SHA-256",
                )
            } else {
                Check::outcome(
                    "receipt.transport_digest",
                    token == actual,
                    format!("SHA-256 of receipt.json is {actual}; receipt.sha256 says {token}"),
                )
                .with_values(json!(token), json!(actual))
            }
        }
    });
    let c = v.get("contracts");
    let mut p = Vec::new();
    if v.get("kind").and_then(Value::as_str) != Some("source-measurement-receipt") {
        p.push("kind is not \"source-measurement-receipt\"".to_string());
    }
    if v.get("version").and_then(Value::as_u64) != Some(1) {
        p.push("version is not 1".into());
    }
    for (k, want) in [
        ("publication", json!(1)),
        ("normalized", json!("agentx-v1")),
        ("raw", json!("aiperf-1.4")),
    ] {
        if c.and_then(|c| c.get(k)) != Some(&want) {
            p.push(format!("contracts.{k} is not {want}"));
        }
    }
    out.push(outcome("receipt.contract", p, "kind source-measurement-receipt, version 1, contracts raw aiperf-1.4, normalized agentx-v1, publication 1"));
    let mut payload = v.as_object().cloned().unwrap_or_default();
    let rid = payload.remove("receipt_id");
    out.push(match canonical(&Value::Object(payload)) {
        Err(why) => Check::fail("receipt.id", why),
        Ok(text) => {
            let mine = Sha256Digest::of_bytes(text.as_bytes()).to_hex();
            if !is_digest(rid.as_ref()) {
                Check::fail("receipt.id", "receipt_id is not a 64-character lowercase hex SHA-256")
            } else {
                let r = rid.as_ref().and_then(Value::as_str).unwrap_or("");
                Check::outcome("receipt.id", r == mine, format!("receipt_id = SHA-256 of the canonical JSON without receipt_id (keys sorted, no whitespace) = {mine}; the receipt says {r}")).with_values(json!(r), json!(mine))
            }
        }
    });
    let mut p = Vec::new();
    let repo_ok = v
        .get("repository")
        .and_then(Value::as_str)
        .is_some_and(|r| {
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
    if !run_id(v.get("source_run_id")) {
        p.push("source_run_id is not a positive decimal string".into());
    }
    if !positive(v.get("source_attempt")) {
        p.push("source_attempt is not a positive integer".into());
    }
    if !is_digest(v.get("bundle_digest")) {
        p.push("bundle_digest is not a SHA-256".into());
    }
    out.push(outcome(
        "receipt.source",
        p,
        "repository, source run, attempt and bundle digest well formed",
    ));
    let (pc, required) = check_points(&v);
    out.push(pc);
    out.push(check_artifacts(&v, &required));
    Ok((out, v))
}

fn check_points(v: &Value) -> (Check, BTreeSet<u64>) {
    let mut p = Vec::new();
    let mut required = BTreeSet::new();
    let points = v.get("points").and_then(Value::as_array);
    match points {
        None => p.push("points is not an array".to_string()),
        Some(a) if a.is_empty() => p.push("points is empty".into()),
        Some(a) => {
            let mut seen = BTreeSet::new();
            for (i, pt) in a.iter().enumerate() {
                let at = format!("points[{i}]");
                let id = pt.get("point_id").and_then(Value::as_str).unwrap_or("");
                if !is_digest(pt.get("point_id")) || !seen.insert(id.to_string()) {
                    p.push(format!("{at}: point_id missing, not a SHA-256 or repeated"));
                }
                if !is_digest(pt.get("bundle_digest"))
                    || pt
                        .get("execution_id")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    || !positive(pt.get("concurrency"))
                    || !positive(pt.get("source_attempt"))
                    || !run_id(pt.get("source_run_id"))
                {
                    p.push(format!("{at}: bundle_digest, execution_id, concurrency, source_attempt or source_run_id invalid"));
                }
                let kind = pt.get("kind").and_then(Value::as_str);
                if !matches!(kind, Some("throughput" | "eval")) {
                    p.push(format!("{at}: kind is not throughput or eval"));
                }
                let t = pt.get("topology");
                if t.and_then(|t| t.get("kind")).and_then(Value::as_str) != Some("aggregate")
                    || t.and_then(|t| t.get("nodes")).and_then(Value::as_u64) != Some(1)
                    || !["tp", "ep", "serving_gpus"]
                        .iter()
                        .all(|k| positive(t.and_then(|t| t.get(*k))))
                {
                    p.push(format!("{at}: unsupported topology (aggregate, 1 node, positive tp, ep, serving_gpus)"));
                }
                let ids: Vec<u64> = pt
                    .get("artifact_ids")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default();
                let n_ids = pt
                    .get("artifact_ids")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                let uniq: BTreeSet<u64> = ids.iter().copied().collect();
                let has = |k: &str| {
                    pt.get(k)
                        .and_then(Value::as_u64)
                        .is_some_and(|x| uniq.contains(&x))
                };
                let path_ok = |k: &str| pt.get(k).and_then(Value::as_str).is_some_and(safe_path);
                if ids.is_empty()
                    || ids.len() != n_ids
                    || uniq.len() != ids.len()
                    || ids.contains(&0)
                    || !has("normalized_artifact_id")
                    || !path_ok("normalized_path")
                    || pt
                        .get("required_metrics")
                        .and_then(Value::as_array)
                        .is_none_or(Vec::is_empty)
                {
                    p.push(format!(
                        "{at}: artifact ids, normalized artifact/path or required_metrics invalid"
                    ));
                }
                if !has("execution_artifact_id")
                    || !path_ok("execution_path")
                    || !is_digest(pt.get("native_manifest_sha256"))
                    || pt
                        .get("config")
                        .and_then(Value::as_object)
                        .is_none_or(|m| m.is_empty())
                {
                    p.push(format!(
                        "{at}: execution artifact/path, native_manifest_sha256 or config missing"
                    ));
                }
                let fmt = pt.get("normalized_format").and_then(Value::as_str);
                if !matches!(fmt, Some("normalized" | "lm-eval"))
                    || (fmt == Some("lm-eval")
                        && (kind != Some("eval") || !path_ok("metadata_path")))
                {
                    p.push(format!(
                        "{at}: invalid normalized_format or its metadata_path"
                    ));
                }
                if kind == Some("eval")
                    && (pt
                        .get("task")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                        || !positive(pt.get("sample_count"))
                        || pt
                            .get("filters")
                            .and_then(Value::as_array)
                            .is_none_or(Vec::is_empty)
                        || !has("samples_artifact_id")
                        || !path_ok("samples_path"))
                {
                    p.push(format!("{at}: eval point without its sample contract (task, sample_count, filters, samples artifact and path)"));
                }
                required.extend(uniq);
            }
        }
    }
    (
        outcome("receipt.points", p, "every point well formed, ids unique"),
        required,
    )
}

fn check_artifacts(v: &Value, required: &BTreeSet<u64>) -> Check {
    let mut p = Vec::new();
    let points: Vec<&Value> = v
        .get("points")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let Some(arts) = v.get("artifacts").and_then(Value::as_array) else {
        return Check::fail("receipt.artifacts", "artifacts is not an array");
    };
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    for (i, a) in arts.iter().enumerate() {
        let at = format!("artifacts[{i}]");
        let id = a.get("id").and_then(Value::as_u64).unwrap_or(0);
        let name = a.get("name").and_then(Value::as_str).unwrap_or("");
        let name_ok = !name.is_empty()
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
        if !positive(a.get("id"))
            || !ids.insert(id)
            || !required.contains(&id)
            || !is_digest(a.get("sha256"))
            || !name_ok
            || !names.insert(name.to_string())
        {
            p.push(format!(
                "{at}: id, name or sha256 invalid, repeated, or not named by any point"
            ));
        }
        let mut members = BTreeSet::new();
        match a.get("members").and_then(Value::as_array) {
            None => p.push(format!("{at}: members is not an array")),
            Some(ms) => {
                for m in ms {
                    let path = m.get("path").and_then(Value::as_str).unwrap_or("");
                    let size_ok = m
                        .get("size")
                        .and_then(Value::as_u64)
                        .is_some_and(|s| s < (1 << 53));
                    if !safe_path(path)
                        || !members.insert(path.to_string())
                        || !is_digest(m.get("sha256"))
                        || !size_ok
                    {
                        p.push(format!("{at}: member {path:?}: unsafe or repeated path, or invalid sha256 or size"));
                    }
                }
            }
        }
        for pt in points.iter().filter(|pt| {
            pt.get("artifact_ids")
                .and_then(Value::as_array)
                .is_some_and(|ids| ids.iter().any(|x| x.as_u64() == Some(id)))
        }) {
            if pt.get("source_run_id") != a.get("run_id") {
                p.push(format!(
                    "{at}: run_id differs from its point's source_run_id"
                ));
            }
            for (idk, pathk) in [
                ("execution_artifact_id", "execution_path"),
                ("normalized_artifact_id", "normalized_path"),
                ("normalized_artifact_id", "metadata_path"),
                ("samples_artifact_id", "samples_path"),
            ] {
                if pt.get(idk).and_then(Value::as_u64) == Some(id) {
                    if let Some(path) = pt.get(pathk).and_then(Value::as_str) {
                        if !members.contains(path) {
                            p.push(format!("{at}: {pathk} {path:?} is not one of its members"));
                        }
                    }
                }
            }
        }
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

/// Walks an artifact folder: regular files (relative paths), symlinks and
/// special files found.
#[derive(Debug, Default)]
struct Tree {
    files: BTreeMap<String, u64>,
    symlinks: Vec<String>,
    special: Vec<String>,
    truncated: bool,
}

fn walk(dir: &Path, prefix: &str, t: &mut Tree, depth: usize) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        if t.files.len() + t.symlinks.len() + t.special.len() >= MAX_ENTRIES || depth > 64 {
            t.truncated = true;
            return Ok(());
        }
        let name = e.file_name().to_string_lossy().to_string();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let md = std::fs::symlink_metadata(e.path())?;
        let ft = md.file_type();
        if ft.is_symlink() {
            t.symlinks.push(rel);
        } else if ft.is_dir() {
            walk(&e.path(), &rel, t, depth + 1)?;
        } else if ft.is_file() {
            t.files.insert(rel, md.len());
        } else {
            t.special.push(rel);
        }
    }
    Ok(())
}

const ROOT_PREFIXES: [&str; 5] = ["bmk_", "results_", "eval_", "agentic_", "server_logs_"];

/// Verifies a receipt directory; `Err` only when `receipt.json` cannot be
/// read or is not JSON.
pub fn verify_receipt_dir(dir: &Path) -> Result<Report, ReceiptError> {
    let rpath = dir.join("receipt.json");
    if !rpath.is_file() {
        return Err(ReceiptError::NotAReceipt {
            path: dir.to_path_buf(),
        });
    }
    let bytes =
        crate::manifest::read_capped(&rpath, MAX_RECEIPT).map_err(|e| ReceiptError::Read {
            path: rpath.clone(),
            message: e.to_string(),
        })?;
    let spath = dir.join("receipt.sha256");
    let sha = match std::fs::symlink_metadata(&spath) {
        Ok(m) if m.is_file() => {
            Some(
                crate::manifest::read_capped(&spath, 4096).map_err(|e| ReceiptError::Read {
                    path: spath.clone(),
                    message: e.to_string(),
                })?,
            )
        }
        _ => None,
    };
    let (checks, v) =
        check_receipt_bytes(&bytes, sha.as_deref()).map_err(|message| ReceiptError::Json {
            path: rpath.clone(),
            message,
        })?;
    let mut report = Report::new(dir.display().to_string());
    for c in checks {
        report.push(c);
    }
    let empty = Vec::new();
    let arts = v
        .get("artifacts")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let names: BTreeSet<String> = arts
        .iter()
        .filter_map(|a| a.get("name").and_then(Value::as_str))
        .filter(|n| safe_path(n) && !n.contains('/'))
        .map(String::from)
        .collect();
    // The snapshot root: no artifact-looking folder the receipt does not list.
    let mut stray = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            let allowed = names.contains(&n)
                || [
                    ".receipt-objects",
                    "changelog-metadata",
                    "reused-ingest-metadata",
                ]
                .contains(&n.as_str());
            if ROOT_PREFIXES.iter().any(|p| n.starts_with(p)) && !allowed {
                stray.push(n);
            }
        }
    }
    stray.sort();
    report.push(outcome(
        "receipt.root",
        stray
            .iter()
            .map(|s| format!("{s}: an artifact folder the receipt does not list"))
            .collect(),
        "no artifact folder beside those the receipt lists",
    ));
    for a in arts {
        let Some(name) = a
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| names.contains(*n))
        else {
            continue;
        };
        let base = format!("receipt.artifact:{name}");
        let adir = dir.join(name);
        let members: BTreeMap<String, (u64, String)> = a
            .get("members")
            .and_then(Value::as_array)
            .map(|ms| {
                ms.iter()
                    .filter_map(|m| {
                        Some((
                            m.get("path")?.as_str()?.to_string(),
                            (
                                m.get("size")?.as_u64()?,
                                m.get("sha256")?.as_str()?.to_string(),
                            ),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut t = Tree::default();
        let top = std::fs::symlink_metadata(&adir);
        let walked = match &top {
            Ok(m) if m.file_type().is_symlink() => {
                t.symlinks.push(".".into());
                Ok(())
            }
            Ok(m) if m.is_dir() => walk(&adir, "", &mut t, 0),
            Ok(_) => Err(std::io::Error::other("not a directory")),
            Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        };
        if let Err(e) = walked {
            report.push(Check::fail(
                format!("{base}.missing"),
                format!(
                    "{}: the artifact folder cannot be read: {e}",
                    adir.display()
                ),
            ));
            for p in members.keys() {
                report.push(Check::not_checkable(
                    format!("receipt.member:{name}/{p}"),
                    format!("{base}.missing failed"),
                ));
            }
            continue;
        }
        report.push(outcome(
            &format!("{base}.symlinks"),
            t.symlinks
                .iter()
                .map(|s| format!("{s} is a symbolic link"))
                .collect(),
            "no symbolic links",
        ));
        report.push(outcome(
            &format!("{base}.special"),
            t.special
                .iter()
                .map(|s| format!("{s} is not a regular file or folder"))
                .collect(),
            "no special files",
        ));
        let extra: Vec<String> = t
            .files
            .keys()
            .filter(|f| !members.contains_key(*f))
            .cloned()
            .collect();
        let mut ex = extra
            .iter()
            .map(|f| format!("{f} is not a member of the receipt"))
            .collect::<Vec<_>>();
        if t.truncated {
            ex.push(format!("more than {MAX_ENTRIES} entries"));
        }
        report.push(outcome(
            &format!("{base}.extra"),
            ex,
            "no file beside the listed members",
        ));
        let missing: Vec<String> = members
            .keys()
            .filter(|m| !t.files.contains_key(*m))
            .cloned()
            .collect();
        report.push(outcome(
            &format!("{base}.missing"),
            missing
                .iter()
                .map(|m| format!("member {m} is not in the folder"))
                .collect(),
            "every listed member is present",
        ));
        for (p, (size, sha)) in &members {
            let id = format!("receipt.member:{name}/{p}");
            let Some(actual_size) = t.files.get(p) else {
                report.push(Check::not_checkable(
                    format!("{id}.size"),
                    format!("{base}.missing failed"),
                ));
                report.push(Check::not_checkable(
                    format!("{id}.sha256"),
                    format!("{base}.missing failed"),
                ));
                continue;
            };
            report.push(
                Check::outcome(
                    format!("{id}.size"),
                    actual_size == size,
                    format!("{actual_size} bytes; the receipt lists {size}"),
                )
                .with_values(*size, *actual_size),
            );
            match hash_file(&adir.join(p), &NoProgress) {
                Ok((d, _)) => report.push(
                    Check::outcome(
                        format!("{id}.sha256"),
                        d.to_hex() == *sha,
                        format!("SHA-256 {}; the receipt lists {sha}", d.to_hex()),
                    )
                    .with_values(json!(sha), json!(d.to_hex())),
                ),
                Err(e) => report.push(Check::fail(format!("{id}.sha256"), e.to_string())),
            }
        }
        let zip = [
            dir.join(format!(
                "{}.zip",
                a.get("id").and_then(Value::as_u64).unwrap_or(0)
            )),
            dir.join(format!("{name}.zip")),
        ]
        .into_iter()
        .find(|p| p.is_file());
        let want = a.get("sha256").and_then(Value::as_str).unwrap_or("");
        report.push(match zip {
            Some(z) => match hash_file(&z, &NoProgress) {
                Ok((d, _)) => Check::outcome(format!("{base}.archive"), d.to_hex() == want, format!("{}: SHA-256 {}; the receipt lists {want}", z.display(), d.to_hex())),
                Err(e) => Check::fail(format!("{base}.archive"), e.to_string()),
            },
            None => Check::skip(format!("{base}.archive"), "the artifact's sha256 is its archive's digest, and the archive (<id>.zip) is not in the directory; its members are checked one by one"),
        });
    }
    super::receipt_points::check_executions(dir, &v, &names, &mut report);
    let s = report.summary;
    report.verdict = Some(if s.passed == 0 && s.failed == 0 {
        report.ok = false;
        format!(
            "FAILED: nothing in receipt {} could be compared ({} checks not applicable)",
            dir.display(),
            s.skipped
        )
    } else if report.ok {
        format!(
            "VERIFIED: receipt {} ({} checks passed, {} not applicable)",
            dir.display(),
            s.passed,
            s.skipped
        )
    } else {
        format!("FAILED: {}", super::failed_checks(&report))
    });
    Ok(report)
}
