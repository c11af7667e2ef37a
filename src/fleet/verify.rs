//! The fleet-wide verdict over host reports: every selected host has
//! exactly one trusted, passing report for the pinned manifest and config,
//! in at least the required mode, and no report is for a host outside it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::binding::{host_subchecks, Good, SUBS};
use super::require::{Expect, FleetRequirements};
use super::types::{
    FleetError, HostCheckPredicate, Mode, HOST_CHECK_PREDICATE_TYPE, HOST_CHECK_PREDICATE_TYPE_V1,
};
use crate::attest::{self, Statement, Verified};
use crate::report::{Check, Report};
use crate::strictjson::reject_duplicate_json_keys;

/// The hosts a fleet file selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetHosts {
    /// Where the list came from.
    pub origin: String,
    /// Host names, unique, in file order.
    pub hosts: Vec<String>,
}

impl FleetHosts {
    /// Reads `{"hosts": [{"name": ...}, ...]}`, or a qualified-fleet file's
    /// `{"engines": [{"host": ...}, ...]}`.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<FleetHosts, FleetError> {
        let bad = |reason: String| FleetError::BadFleet {
            origin: origin.into(),
            reason,
        };
        reject_duplicate_json_keys(bytes).map_err(|e| bad(e.to_string()))?;
        let v: Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        let (list, key) =
            match (v.get("hosts"), v.get("engines")) {
                (Some(h), _) => (h, "name"),
                (None, Some(e)) => (e, "host"),
                _ => return Err(bad(
                    "expected {\"hosts\": [{\"name\": ...}]} or {\"engines\": [{\"host\": ...}]}"
                        .into(),
                )),
            };
        let list = list
            .as_array()
            .ok_or_else(|| bad("the host list is not an array".into()))?;
        let mut hosts = Vec::new();
        for (i, h) in list.iter().enumerate() {
            let name = h
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| bad(format!("entry #{} has no {key:?} string", i + 1)))?;
            if hosts.iter().any(|x: &String| x == name) {
                return Err(bad(format!("host {name:?} is listed twice")));
            }
            hosts.push(name.to_string());
        }
        if hosts.is_empty() {
            return Err(bad("the fleet selects no host".into()));
        }
        Ok(FleetHosts {
            origin: origin.into(),
            hosts,
        })
    }
}

/// One report as read: where it came from and its signature's outcome.
#[derive(Debug)]
pub struct ReportIn {
    /// The report's file (for messages).
    pub origin: String,
    /// The envelope bytes (to name the host it claims if it does not verify).
    pub bytes: Vec<u8>,
    /// The verified Statement, or why its signature does not hold.
    pub verified: Result<Verified<Statement>, String>,
}

/// One row of the fleet table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HostRow {
    /// The host.
    pub host: String,
    /// The mode its report states.
    pub mode: Option<Mode>,
    /// Files and bytes its report states.
    pub files: Option<u64>,
    /// Bytes.
    pub bytes: Option<u64>,
    /// How long the check took, seconds.
    pub duration_s: Option<f64>,
    /// Every check of the host held.
    pub ok: bool,
}

/// The fleet verdict.
#[derive(Debug, Clone)]
pub struct FleetVerification {
    /// Every check.
    pub report: Report,
    /// One row per selected host.
    pub rows: Vec<HostRow>,
}

/// A v1 report's predicate (`host-check:v1`: no `run`, `fleet` or
/// `shards`), read as the current one with those fields as placeholders
/// (`run` "v1", the fleet as the weights manifest's digest, no shards); the
/// report is marked [`Good::v1`] and its run, fleet and shard bindings are
/// never compared with them. Fields a v1 report states are kept as stated.
fn v1_as_current(predicate: &serde_json::Value, v1: bool) -> serde_json::Value {
    let mut p = predicate.clone();
    if let (true, Some(o)) = (v1, p.as_object_mut()) {
        let manifest = o.get("manifest").cloned().unwrap_or_default();
        o.entry("run").or_insert_with(|| "v1".into());
        o.entry("fleet").or_insert(manifest);
        o.entry("shards").or_insert_with(|| serde_json::json!([]));
    }
    p
}

fn claimed_host(bytes: &[u8]) -> Option<String> {
    let u = attest::inspect_envelope(bytes).ok()?;
    u.claimed
        .predicate
        .get("host")?
        .as_str()
        .map(str::to_string)
}

/// The checks of a fleet's host reports, with ids `<prefix>:<host>...`
/// (`host` for `fleet verify`) and `<prefix>s.outside`.
pub fn verify_fleet(
    hosts: &[String],
    reports: Vec<ReportIn>,
    req: &FleetRequirements,
    prefix: &str,
) -> (Vec<Check>, Vec<HostRow>) {
    let mut checks = Vec::new();
    let mut good: BTreeMap<String, Vec<Good>> = BTreeMap::new();
    let mut bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unnamed: Vec<String> = Vec::new();
    for r in reports {
        let why = match r.verified {
            Ok(v) => {
                let st = v.get();
                let v1 = st.predicate_type == HOST_CHECK_PREDICATE_TYPE_V1;
                if !v1 && st.predicate_type != HOST_CHECK_PREDICATE_TYPE {
                    Err(format!(
                        "{}: signed, but its predicateType is {}, not a host check",
                        r.origin, st.predicate_type
                    ))
                } else {
                    match serde_json::from_value::<HostCheckPredicate>(v1_as_current(
                        &st.predicate,
                        v1,
                    ))
                    .map_err(|e| e.to_string())
                    .and_then(|p| p.validate().map(|()| p))
                    {
                        Err(e) => Err(format!(
                            "{}: signed, but not a valid host-check predicate: {e}",
                            r.origin
                        )),
                        Ok(p) => {
                            let g = Good {
                                origin: r.origin.clone(),
                                weights_subject: st.subject("weights.manifest").map(|s| s.digest),
                                config_subject: st.subject("config.json").map(|s| s.digest),
                                p,
                                v1,
                            };
                            good.entry(g.p.host.clone()).or_default().push(g);
                            Ok(())
                        }
                    }
                }
            }
            Err(e) => Err(format!(
                "{} does not verify under a key trusted for host: {e}",
                r.origin
            )),
        };
        if let Err(w) = why {
            match claimed_host(&r.bytes) {
                Some(h) => bad.entry(h).or_default().push(w),
                None => unnamed.push(w),
            }
        }
    }
    let mut rows = Vec::new();
    for h in hosts {
        let id = format!("{prefix}:{h}");
        let sub = |s: &str| format!("{id}.{s}");
        let list = good.get(h).map(Vec::as_slice).unwrap_or(&[]);
        let fail_all = |checks: &mut Vec<Check>, why: &str| {
            for s in SUBS {
                checks.push(Check::not_checkable_by(sub(s), &id, why));
            }
        };
        match list {
            [] => {
                let why = match bad.get(h) {
                    Some(b) => format!("no trusted report for host {h}: {}", b.join("; ")),
                    None => format!("no report for host {h}"),
                };
                checks.push(Check::fail(&id, why));
                fail_all(
                    &mut checks,
                    &format!("host {h} has no trusted report (see {id})"),
                );
                rows.push(HostRow {
                    host: h.clone(),
                    mode: None,
                    files: None,
                    bytes: None,
                    duration_s: None,
                    ok: false,
                });
            }
            [_, _, ..] => {
                let names: Vec<&str> = list.iter().map(|g| g.origin.as_str()).collect();
                checks.push(Check::fail(
                    &id,
                    format!(
                        "{} reports for host {h} ({}): one host, one report",
                        list.len(),
                        names.join(", ")
                    ),
                ));
                fail_all(
                    &mut checks,
                    &format!("host {h} has more than one report (see {id})"),
                );
                rows.push(HostRow {
                    host: h.clone(),
                    mode: None,
                    files: None,
                    bytes: None,
                    duration_s: None,
                    ok: false,
                });
            }
            [g] => {
                let p = &g.p;
                let before = checks.len();
                checks.push(Check::pass(
                    &id,
                    format!(
                        "{}: signed by a key trusted for host, checked {} at {}",
                        g.origin, p.root, p.finished_at
                    ),
                ));
                checks.extend(host_subchecks(&id, h, g, req));
                let ok = checks[before..].iter().all(|c| !c.failed());
                let dur = match (
                    crate::timefmt::parse_rfc3339_utc(&p.started_at),
                    crate::timefmt::parse_rfc3339_utc(&p.finished_at),
                ) {
                    (Ok(a), Ok(b)) => Some(b - a),
                    _ => None,
                };
                rows.push(HostRow {
                    host: h.clone(),
                    mode: Some(p.mode),
                    files: Some(p.files),
                    bytes: Some(p.bytes),
                    duration_s: dur,
                    ok,
                });
            }
        }
    }
    let mut outside: Vec<String> = good
        .iter()
        .filter(|(h, _)| !hosts.contains(h))
        .flat_map(|(h, gs)| {
            gs.iter()
                .map(move |g| format!("{} is a report for host {h}", g.origin))
        })
        .collect();
    outside.extend(
        bad.iter()
            .filter(|(h, _)| !hosts.contains(h))
            .flat_map(|(_, w)| w.iter().cloned()),
    );
    outside.extend(unnamed);
    if matches!(req.record, Expect::NotAsked(_) | Expect::NoEvidence(_)) {
        checks.push(agree_check(hosts, &good, prefix));
    }
    checks.push(if outside.is_empty() {
        Check::pass(
            format!("{prefix}s.outside"),
            "no report for a host outside the fleet",
        )
    } else {
        Check::fail(
            format!("{prefix}s.outside"),
            format!(
                "report(s) for no selected host, or not readable as a host report: {}",
                outside.join("; ")
            ),
        )
    });
    (checks, rows)
}

/// `<prefix>s.agree` (without a weights record): every host with
/// one trusted report states the same totals and shard header digests.
fn agree_check(hosts: &[String], good: &BTreeMap<String, Vec<Good>>, prefix: &str) -> Check {
    let id = format!("{prefix}s.agree");
    let mut seen: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for h in hosts {
        if let Some([g]) = good.get(h).map(Vec::as_slice) {
            let key =
                serde_json::json!({"files": g.p.files, "bytes": g.p.bytes, "shards": g.p.shards})
                    .to_string();
            seen.entry(key).or_default().push(h);
        }
    }
    if seen.len() <= 1 {
        return Check::pass(
            id,
            format!(
                "every report states the same files, bytes and shard header digests ({} host(s)); no weights record was given to compare them with",
                seen.values().map(Vec::len).sum::<usize>()
            ),
        );
    }
    // The largest group first: the odd host out is named last.
    let mut groups: Vec<&Vec<&str>> = seen.values().collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    let groups: Vec<String> = groups.iter().map(|hs| hs.join(", ")).collect();
    Check::fail(
        id,
        format!(
            "the hosts' reports disagree on the files, bytes or shard headers they found: {} (one group per distinct report)",
            groups.join(" vs ")
        ),
    )
}

/// `fleet verify`: reads every report file, verifies its signature under
/// the keys of `trust` trusted for `host`, and checks the fleet.
pub fn verify_fleet_files(
    fleet: &FleetHosts,
    files: &[std::path::PathBuf],
    trust: &crate::keys::TrustStore,
    req: &FleetRequirements,
) -> Result<FleetVerification, FleetError> {
    if req.mode == Mode::SizesOnly {
        // A sizes-only report tells swapped shards only by their
        // headers, which only the record pins.
        match &req.record {
            Expect::Is(r) => {
                if let Some((first, _)) = r.shards.iter().find(|(_, d)| d.is_none()) {
                    return Err(FleetError::Manifest(
                        crate::manifest::ManifestError::NoHeaderDigests {
                            origin: r.origin.clone(),
                            missing: r.shards.values().filter(|d| d.is_none()).count(),
                            shards: r.shards.len(),
                            first: first.clone(),
                        },
                    ));
                }
            }
            _ => {
                return Err(FleetError::BadArgument(
                    "--mode sizes-only needs the weights record (--weights-record: the JSON manifest record, with header digests): with a digest alone, sizes-only cannot detect swapped shards".into(),
                ))
            }
        }
    }
    let mut reports = Vec::new();
    for f in files {
        let bytes = attest::read_envelope_file(f).map_err(|source| FleetError::Io {
            path: f.clone(),
            source,
        })?;
        let verified = attest::verify_envelope(&bytes, trust, crate::keys::Role::Host, 1)
            .map_err(|e| e.to_string().replace('\n', " "));
        reports.push(ReportIn {
            origin: f.display().to_string(),
            bytes,
            verified,
        });
    }
    let mut report = Report::new(format!(
        "fleet of {} ({} hosts)",
        fleet.origin,
        fleet.hosts.len()
    ));
    report.push(Check::pass(
        "fleet.hosts",
        format!(
            "{} selects {} host(s): {}",
            fleet.origin,
            fleet.hosts.len(),
            fleet.hosts.join(", ")
        ),
    ));
    let (checks, rows) = verify_fleet(&fleet.hosts, reports, req, "host");
    for c in checks {
        report.push(c);
    }
    Ok(FleetVerification { report, rows })
}
