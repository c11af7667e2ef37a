//! Assembling the report of a bundle verification from what the reader
//! collected ([`Walk`]) and how the stream ended ([`StreamEnd`]): the
//! bundle-level checks in their fixed order (`bundle.sha256`, `bundle.gzip`,
//! `bundle.tar`, `bundle.root`, `bundle.manifest`, the six
//! `bundle.limit:*`), then one `bundle.entry:*` per entry in archive order,
//! then one per MANIFEST line that no entry matched.

use std::collections::HashSet;

use super::entries::{EntryChecks, RootDir};
use super::limits::{Limits, MAX_REPORTED_ENTRY_FAILURES, RATIO_BURST_BYTES, TRAILING_READ_LIMIT};
use super::source::StreamEnd;
use super::types::{entry_check_id, limit_check_id, BundleError, BundleVerification};
use crate::digest::Sha256Digest;
use crate::manifest::Manifest;
use crate::report::{Check, Report};

/// One regular file seen in the archive.
pub(crate) struct SeenFile {
    pub rel: String,
    pub sha256: Sha256Digest,
    pub size: u64,
    pub problem: Option<String>,
}

/// The tar-level verdict and everything collected.
#[derive(Default)]
pub(crate) struct Walk {
    pub tar_problem: Option<String>,
    /// The end-of-archive blocks were seen.
    pub eoa: bool,
    pub nonzero_after_eoa: u64,
    pub root: RootDir,
    pub manifest: Option<Manifest>,
    pub manifest_problem: Option<String>,
    pub manifest_seen: bool,
    pub files: Vec<SeenFile>,
    pub entries: EntryChecks,
    /// Listed paths that appeared as unsafe or non-file entries (so they are
    /// not also reported missing).
    pub shadowed: HashSet<String>,
    pub path_limit_fails: u64,
    pub entry_count: u64,
    pub max_entry: u64,
    pub max_path: usize,
    pub max_pax: u64,
    pub limit_stop: Option<(&'static str, String)>,
    pub fatal: Option<BundleError>,
    /// Rejected entries reported with a check of their own (at most
    /// [`MAX_REPORTED_ENTRY_FAILURES`]), and those only counted.
    pub reported_rejections: usize,
    pub unreported_rejections: u64,
}

/// The report and outcome of one verification.
pub(crate) fn assemble(
    target: &str,
    limits: &Limits,
    mut w: Walk,
    mut end: StreamEnd,
) -> BundleVerification {
    if let Some(stop) = end.limit_stop.take() {
        w.limit_stop = Some(stop);
    }
    let mut report = Report::new(target);
    report.push(match (&w.limit_stop, end.bundle_sha256) {
        (_, Some(d)) => Check::pass("bundle.sha256", d.prefixed())
            .with_values(serde_json::Value::Null, d.to_hex()),
        (Some((name, _)), None) => Check::not_checkable(
            "bundle.sha256",
            format!("reading stopped at the {name} limit before the end of the file"),
        ),
        (None, None) if end.trailing_capped => Check::not_checkable(
            "bundle.sha256",
            format!(
                "reading stopped {TRAILING_READ_LIMIT} bytes after the {} before the end of the file",
                if end.member_end {
                    "end of the gzip member"
                } else {
                    "gzip error"
                }
            ),
        ),
        (None, None) => Check::not_checkable(
            "bundle.sha256",
            "reading stopped before the end of the file",
        ),
    });
    let at_least = if end.trailing_capped { "at least " } else { "" };
    let gz = if let Some(e) = &end.gzip_error {
        Check::fail("bundle.gzip", e.clone())
    } else if end.second_member {
        Check::fail(
            "bundle.gzip",
            format!(
                "a second gzip member follows the first ({at_least}{} bytes); a bundle is exactly one member",
                end.trailing
            ),
        )
    } else if end.trailing > 0 {
        Check::fail(
            "bundle.gzip",
            format!(
                "{at_least}{} bytes of trailing data after the gzip member",
                end.trailing
            ),
        )
    } else if w.limit_stop.is_some() {
        Check::not_checkable("bundle.gzip", "reading stopped at a limit")
    } else if end.member_end {
        Check::pass(
            "bundle.gzip",
            "one gzip member, CRC and length match, nothing after it",
        )
    } else {
        Check::not_checkable("bundle.gzip", "the stream was not read to its end")
    };
    report.push(gz);
    let tar = if let Some(p) = &w.tar_problem {
        Check::fail("bundle.tar", p.clone())
    } else if w.nonzero_after_eoa > 0 {
        Check::fail(
            "bundle.tar",
            format!(
                "{} non-zero bytes after the end-of-archive blocks (only zeros may follow them)",
                w.nonzero_after_eoa
            ),
        )
    } else if w.eoa {
        Check::pass(
            "bundle.tar",
            format!("{} entries, ends with two zero blocks", w.entry_count),
        )
    } else if end.gzip_error.is_some() {
        Check::not_checkable(
            "bundle.tar",
            "the gzip stream could not be read to the end of the archive",
        )
    } else if w.limit_stop.is_some() {
        Check::not_checkable("bundle.tar", "reading stopped at a limit")
    } else {
        Check::fail(
            "bundle.tar",
            "the archive ends without end-of-archive blocks (truncated)",
        )
    };
    report.push(tar);
    report.push(match (&w.root.name, w.root.outside) {
        (None, _) => Check::fail(
            "bundle.root",
            "no entry under a top-level directory (empty or unreadable archive)",
        ),
        (Some(r), 0) => Check::pass("bundle.root", format!("every entry is under {r}/")),
        (Some(r), n) => Check::fail("bundle.root", format!("{n} entries are outside {r}/")),
    });
    let stopped_early =
        w.limit_stop.is_some() || end.gzip_error.is_some() || (!w.eoa && w.tar_problem.is_some());
    let stopped_by = if let Some((name, _)) = &w.limit_stop {
        Some(limit_check_id(name))
    } else if end.gzip_error.is_some() {
        Some("bundle.gzip".to_string())
    } else if !w.eoa {
        Some("bundle.tar".to_string())
    } else {
        None
    };
    report.push(match (&w.manifest_problem, w.manifest_seen) {
        (Some(p), _) => Check::fail("bundle.manifest", p.clone()),
        (None, true) => Check::pass(
            "bundle.manifest",
            format!(
                "MANIFEST first and canonical, {} files, {}",
                w.manifest.as_ref().map_or(0, |m| m.len()),
                w.manifest
                    .as_ref()
                    .map_or_else(String::new, |m| m.digest().prefixed())
            ),
        ),
        (None, false) if stopped_early => Check::not_checkable(
            "bundle.manifest",
            "reading stopped before a MANIFEST was found",
        ),
        (None, false) => Check::fail(
            "bundle.manifest",
            "no MANIFEST: the first regular file must be <root>/MANIFEST",
        ),
    });

    // Limits: a failure for the one that stopped reading and for over-long
    // paths; the others pass with what was observed.
    let limit_rows: [(&str, String, bool); 6] = [
        (
            "total_bytes",
            format!("{} of {} bytes", end.out_total, limits.max_total_bytes),
            false,
        ),
        (
            "entry_bytes",
            format!(
                "largest entry {} of {} bytes",
                w.max_entry, limits.max_entry_bytes
            ),
            false,
        ),
        (
            "entries",
            format!("{} of {} entries", w.entry_count, limits.max_entries),
            false,
        ),
        (
            "path_bytes",
            format!(
                "longest path {} of {} bytes",
                w.max_path, limits.max_path_bytes
            ),
            w.path_limit_fails > 0,
        ),
        (
            "pax_record_bytes",
            format!(
                "largest record {} of {} bytes",
                w.max_pax, limits.max_pax_record_bytes
            ),
            false,
        ),
        (
            "ratio",
            format!(
                "{} bytes from {} compressed; at most {} bytes beyond {}:1 in any stretch, least headroom left {} bytes",
                end.out_total,
                end.consumed,
                RATIO_BURST_BYTES,
                limits.max_ratio,
                end.ratio_least.max(0)
            ),
            false,
        ),
    ];
    for (name, observed, path_fail) in limit_rows {
        report.push(limit_check(
            name,
            observed,
            path_fail,
            &w,
            limits,
            end.out_total,
        ));
    }

    // Entries, in archive order, then missing ones in manifest order.
    let mut listed_seen: HashSet<&str> = HashSet::new();
    let mut checks = std::mem::take(&mut w.entries);
    for f in &w.files {
        let id = entry_check_id(&f.rel);
        let c = match &w.manifest {
            _ if f.problem.is_some() => Check::fail(&id, f.problem.clone().unwrap_or_default()),
            None => Check::not_checkable(&id, "no usable MANIFEST to check against"),
            Some(m) => match m.get(&f.rel) {
                None => Check::fail(&id, "unlisted: present in the bundle but not in MANIFEST")
                    .with_values(serde_json::Value::Null, f.sha256.to_hex()),
                Some(e) => {
                    listed_seen.insert(e.path.as_str());
                    if e.sha256 == f.sha256 {
                        Check::pass(&id, format!("{} bytes, matches MANIFEST", f.size))
                    } else {
                        Check::fail(&id, "changed: content differs from MANIFEST")
                            .with_values(e.sha256.to_hex(), f.sha256.to_hex())
                    }
                }
            },
        };
        checks.put(id, c);
    }
    if let Some(m) = &w.manifest {
        for e in m.entries() {
            if listed_seen.contains(e.path.as_str())
                || w.shadowed.contains(&e.path)
                || checks.contains(&entry_check_id(&e.path))
            {
                continue;
            }
            let id = entry_check_id(&e.path);
            let c = if stopped_early || !w.eoa {
                Check::not_checkable(
                    &id,
                    "not reached: reading stopped before the end of the archive",
                )
            } else {
                Check::fail(&id, "missing: listed in MANIFEST but not in the bundle")
                    .with_values(e.sha256.to_hex(), serde_json::Value::Null)
            };
            checks.put(id, c);
        }
    }
    // The index is dropped before the checks move into the report.
    for c in checks.into_checks() {
        report.push(c);
    }
    if w.unreported_rejections > 0 {
        report.push(Check::fail(
            "bundle.entries",
            format!(
                "{} more entries were rejected than the {MAX_REPORTED_ENTRY_FAILURES} reported one by one",
                w.unreported_rejections
            ),
        ));
    }
    let listed_bytes = w.manifest.as_ref().map(|m| {
        w.files
            .iter()
            .filter(|f| m.get(&f.rel).is_some())
            .map(|f| f.size)
            .sum()
    });
    BundleVerification {
        report,
        bundle_sha256: end.bundle_sha256,
        root: w.root.name,
        manifest: w.manifest,
        listed_bytes,
        stopped_by,
    }
}

/// One `bundle.limit:<name>` check: failed where reading stopped on it (or,
/// for paths, where any path was over), else passed with what was
/// `observed`, or only the bytes read where another limit stopped reading
/// (how much compressed input the decompressing thread had taken by then
/// depends on timing: the check says the same on every run).
fn limit_check(
    name: &'static str,
    observed: String,
    path_fail: bool,
    w: &Walk,
    limits: &Limits,
    out_total: u64,
) -> Check {
    let id = limit_check_id(name);
    match &w.limit_stop {
        Some((n, detail)) if *n == name => Check::fail(id, detail.clone()),
        _ if path_fail => Check::fail(
            id,
            format!(
                "{} paths exceed the {}-byte limit; raise --max-path-bytes if this is expected",
                w.path_limit_fails, limits.max_path_bytes
            ),
        ),
        Some(_) if name == "ratio" => Check::pass(
            id,
            format!(
                "within the limit up to where reading stopped ({} bytes read)",
                out_total
            ),
        ),
        Some(_) => Check::pass(
            id,
            format!("within the limit up to where reading stopped ({observed})"),
        ),
        None => Check::pass(id, format!("within the limit ({observed})")),
    }
}
