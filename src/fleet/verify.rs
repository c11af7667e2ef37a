//! The fleet-wide verdict over host reports: every selected host has
//! exactly one trusted, passing report for the pinned manifest and config,
//! in at least the required mode, and no report is for a host outside it.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{FleetError, HostCheckPredicate, Mode, HOST_CHECK_PREDICATE_TYPE};
use crate::attest::{self, Statement, Verified};
use crate::digest::Sha256Digest;
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
    /// `{"engines": [{"host": ...}, ...]}` (v1.1).
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

/// What every host's report must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetRequirements {
    /// The pinned weights manifest digest.
    pub weights: Sha256Digest,
    /// The pinned config digest, if any.
    pub config: Option<Sha256Digest>,
    /// The least mode accepted.
    pub mode: Mode,
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

struct Good {
    origin: String,
    p: HostCheckPredicate,
    weights_subject: Option<Sha256Digest>,
    config_subject: Option<Sha256Digest>,
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
                if st.predicate_type != HOST_CHECK_PREDICATE_TYPE {
                    Err(format!(
                        "{}: signed, but its predicateType is {}, not a host check",
                        r.origin, st.predicate_type
                    ))
                } else {
                    match serde_json::from_value::<HostCheckPredicate>(st.predicate.clone()) {
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
        let subs = ["manifest", "mode", "passed", "config"];
        let list = good.get(h).map(Vec::as_slice).unwrap_or(&[]);
        let fail_all = |checks: &mut Vec<Check>, why: &str| {
            for s in subs {
                checks.push(Check::not_checkable(sub(s), why));
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
                let want = req.weights.prefixed();
                let subject_ok =
                    g.weights_subject.map(|d| d.prefixed()) == Some(p.manifest.clone());
                checks.push(
                    Check::outcome(
                        sub("manifest"),
                        p.manifest == want && subject_ok,
                        if p.manifest != want {
                            format!("host {h} checked against {}, not the pinned weights manifest", p.manifest)
                        } else if !subject_ok {
                            format!("host {h}: the report's weights.manifest subject disagrees with its predicate")
                        } else {
                            format!("host {h} checked against the pinned weights manifest")
                        },
                    )
                    .with_values(want, p.manifest.clone()),
                );
                checks.push(
                    Check::outcome(
                        sub("mode"),
                        p.mode >= req.mode,
                        if p.mode >= req.mode {
                            format!(
                                "host {h} checked {} ({} required)",
                                p.mode.as_str(),
                                req.mode.as_str()
                            )
                        } else {
                            format!(
                                "host {h}'s report was made in mode {}, but mode {} is required: rerun `host check --{}` on the host, or accept {} reports with `fleet verify --mode {}`",
                                p.mode.as_str(),
                                req.mode.as_str(),
                                req.mode.as_str(),
                                p.mode.as_str(),
                                p.mode.as_str()
                            )
                        },
                    )
                    .with_values(req.mode.as_str(), p.mode.as_str()),
                );
                checks.push(
                    Check::outcome(
                        sub("passed"),
                        p.passed && p.failed == 0,
                        if p.passed && p.failed == 0 {
                            format!(
                                "host {h}: all {} files ({} bytes) matched ({})",
                                p.files,
                                p.bytes,
                                p.mode.as_str()
                            )
                        } else {
                            format!(
                                "host {h}: {} path(s) did not match: {}",
                                p.failed,
                                p.failures.join("; ")
                            )
                        },
                    )
                    .with_values(0, p.failed),
                );
                checks.push(match req.config {
                    None => Check::skip(sub("config"), "no --config-pin given; not compared"),
                    Some(c) => {
                        let got = p.config.clone();
                        let subj = g.config_subject.map(|d| d.prefixed());
                        let ok = got.as_deref() == Some(c.prefixed().as_str()) && subj == got;
                        Check::outcome(
                            sub("config"),
                            ok,
                            match &got {
                                None => format!("host {h}: the report records no config digest"),
                                Some(d) if ok => format!("host {h}: config {d}"),
                                Some(d) => format!("host {h}: config {d}, not the pinned one"),
                            },
                        )
                        .with_values(c.prefixed(), json!(got))
                    }
                });
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

/// `fleet verify`: reads every report file, verifies its signature under
/// the keys of `trust` trusted for `host`, and checks the fleet.
pub fn verify_fleet_files(
    fleet: &FleetHosts,
    files: &[std::path::PathBuf],
    trust: &crate::keys::TrustStore,
    req: &FleetRequirements,
) -> Result<FleetVerification, FleetError> {
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
