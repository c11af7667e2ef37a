//! The receipt directory against `receipt.json`: no unlisted artifact
//! folder (`receipt.root`), and per artifact its folder
//! (`receipt.artifact:<name>.{symlinks,special,extra,missing,archive}`)
//! and each member's size and SHA-256 (`receipt.member:<name>/<path>.*`).
//! Folders are walked with [`crate::manifest::walk_tree`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use super::checks::outcome;
use super::model::{safe_path, Artifact};
use crate::digest::hash_file;
use crate::manifest::{walk_tree, Excludes, Walked};
use crate::progress::NoProgress;
use crate::report::{Check, Report};

/// Most files and folders walked under one artifact folder.
pub const MAX_ENTRIES: usize = 100_000;

const ROOT_PREFIXES: [&str; 5] = ["bmk_", "results_", "eval_", "agentic_", "server_logs_"];
const ROOT_ALLOWED: [&str; 3] = [
    ".receipt-objects",
    "changelog-metadata",
    "reused-ingest-metadata",
];

/// The artifact names usable as folder names (one safe component).
pub fn usable_names(arts: &[Artifact]) -> BTreeSet<String> {
    arts.iter()
        .filter_map(|a| a.name.str())
        .filter(|n| safe_path(n) && !n.contains('/'))
        .map(String::from)
        .collect()
}

/// `receipt.root`: no artifact-looking folder the receipt does not list.
pub fn root(dir: &Path, names: &BTreeSet<String>) -> Check {
    let mut stray = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            let allowed = names.contains(&n) || ROOT_ALLOWED.contains(&n.as_str());
            if ROOT_PREFIXES.iter().any(|p| n.starts_with(p)) && !allowed {
                stray.push(n);
            }
        }
    }
    stray.sort();
    outcome(
        "receipt.root",
        stray
            .iter()
            .map(|s| format!("{s}: an artifact folder the receipt does not list"))
            .collect(),
        "no artifact folder beside those the receipt lists",
    )
}

/// What an artifact folder holds.
#[derive(Default)]
struct Tree {
    files: BTreeMap<String, u64>,
    symlinks: Vec<String>,
    special: Vec<String>,
    truncated: bool,
}

fn read_tree(adir: &Path) -> Result<Tree, String> {
    let mut t = Tree::default();
    match std::fs::symlink_metadata(adir) {
        Ok(m) if m.file_type().is_symlink() => {
            t.symlinks.push(".".into());
            return Ok(t);
        }
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err("not a directory".into()),
        Err(e) => return Err(e.to_string()),
    }
    let none = Excludes::new(&[]).map_err(|e| e.to_string())?;
    let mut err = None;
    t.truncated = walk_tree(adir, &none, Some(MAX_ENTRIES), |w| match w {
        Walked::File { rel, abs } => match std::fs::symlink_metadata(&abs) {
            Ok(m) => {
                t.files.insert(rel, m.len());
            }
            Err(e) => err = Some(format!("{rel}: {e}")),
        },
        Walked::Symlink { rel, .. } => t.symlinks.push(rel),
        Walked::Special { rel, .. } => t.special.push(rel),
        // A name no member can have: reported as a file beside the members.
        Walked::BadName { rel, why } => {
            t.files.insert(format!("{rel} ({why})"), 0);
        }
    })
    .map_err(|e| e.to_string())?;
    match err {
        Some(e) => Err(e),
        None => Ok(t),
    }
}

/// The members as listed: path -> (size, sha256).
fn listed_members(a: &Artifact) -> BTreeMap<String, (u64, String)> {
    a.members
        .items()
        .iter()
        .map(|m| m.or_default())
        .filter_map(|m| {
            Some((
                m.path.str()?.to_string(),
                (*m.size.get()?, m.sha256.str()?.to_string()),
            ))
        })
        .collect()
}

/// Every check of one artifact's folder and members.
pub fn artifact(dir: &Path, name: &str, a: &Artifact, report: &mut Report) {
    let base = format!("receipt.artifact:{name}");
    let adir = dir.join(name);
    let members = listed_members(a);
    let t = match read_tree(&adir) {
        Ok(t) => t,
        Err(e) => {
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
            return;
        }
    };
    let listed = |v: &[String], what: &str| v.iter().map(|s| format!("{s} {what}")).collect();
    report.push(outcome(
        &format!("{base}.symlinks"),
        listed(&t.symlinks, "is a symbolic link"),
        "no symbolic links",
    ));
    report.push(outcome(
        &format!("{base}.special"),
        listed(&t.special, "is not a regular file or folder"),
        "no special files",
    ));
    let mut ex: Vec<String> = t
        .files
        .keys()
        .filter(|f| !members.contains_key(*f))
        .map(|f| format!("{f} is not a member of the receipt"))
        .collect();
    if t.truncated {
        ex.push(format!("more than {MAX_ENTRIES} entries"));
    }
    report.push(outcome(
        &format!("{base}.extra"),
        ex,
        "no file beside the listed members",
    ));
    report.push(outcome(
        &format!("{base}.missing"),
        members
            .keys()
            .filter(|m| !t.files.contains_key(*m))
            .map(|m| format!("member {m} is not in the folder"))
            .collect(),
        "every listed member is present",
    ));
    for (p, (size, sha)) in &members {
        member(
            &adir,
            &base,
            &format!("receipt.member:{name}/{p}"),
            p,
            *size,
            sha,
            &t,
            report,
        );
    }
    report.push(archive(dir, name, a, &base));
}

#[allow(clippy::too_many_arguments)]
fn member(
    adir: &Path,
    base: &str,
    id: &str,
    p: &str,
    size: u64,
    sha: &str,
    t: &Tree,
    report: &mut Report,
) {
    let Some(actual_size) = t.files.get(p) else {
        for what in ["size", "sha256"] {
            report.push(Check::not_checkable(
                format!("{id}.{what}"),
                format!("{base}.missing failed"),
            ));
        }
        return;
    };
    report.push(
        Check::outcome(
            format!("{id}.size"),
            *actual_size == size,
            format!("{actual_size} bytes; the receipt lists {size}"),
        )
        .with_values(size, *actual_size),
    );
    report.push(match hash_file(&adir.join(p), &NoProgress) {
        Ok((d, _)) => Check::outcome(
            format!("{id}.sha256"),
            d.to_hex() == sha,
            format!("SHA-256 {}; the receipt lists {sha}", d.to_hex()),
        )
        .with_values(json!(sha), json!(d.to_hex())),
        Err(e) => Check::fail(format!("{id}.sha256"), e.to_string()),
    });
}

/// `receipt.artifact:<name>.archive`: the artifact's digest against its
/// archive (`<id>.zip` or `<name>.zip`) when it is in the directory.
fn archive(dir: &Path, name: &str, a: &Artifact, base: &str) -> Check {
    let id = format!("{base}.archive");
    let zip = [
        dir.join(format!("{}.zip", a.id.get().copied().unwrap_or(0))),
        dir.join(format!("{name}.zip")),
    ]
    .into_iter()
    .find(|p| p.is_file());
    let want = a.sha256.str().unwrap_or("");
    match zip {
        Some(z) => match hash_file(&z, &NoProgress) {
            Ok((d, _)) => Check::outcome(
                id,
                d.to_hex() == want,
                format!(
                    "{}: SHA-256 {}; the receipt lists {want}",
                    z.display(),
                    d.to_hex()
                ),
            ),
            Err(e) => Check::fail(id, e.to_string()),
        },
        None => Check::skip(id, "the artifact's sha256 is its archive's digest, and the archive (<id>.zip) is not in the directory; its members are checked one by one"),
    }
}
