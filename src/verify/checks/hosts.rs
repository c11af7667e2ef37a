//! The host launch-check reports a qualification lists: every
//! engine's host (as its verified attestation names it) has exactly one
//! passing report, by a key trusted for `host`, for the attested weights
//! manifest and config, and no report is for another host. The reports are
//! judged by the fleet layer's rules ([`crate::fleet::verify_fleet`]), the
//! same as `fleet verify`, and are bound to this run: its name, its
//! qualified fleet (`qualified_fleet`), a time between the engines' launch
//! minus the stated window and the first request, the totals and shard
//! headers of its weights record (`weights_record`).

use std::collections::BTreeMap;

use crate::digest::Sha256Digest;
use crate::fleet::{Expect, FleetHosts, FleetRequirements, TimeBounds, WeightsRecord};
use crate::report::{Check, Mark, Report};
use crate::verify::checks::attested::AttestedEngine;
use crate::verify::checks::options::Options;
use crate::verify::evidence::context::Run;

/// Appends the `host:*` checks.
pub fn host_checks(
    report: &mut Report,
    run: &Run<'_>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    opts: &Options<'_>,
) {
    let q = run.q();
    if q.host_checks.is_empty() {
        report.push(Check::unshown(
            "host:*",
            "qualification.json lists no host launch-check reports (host_checks); no per-host check was verified",
        ));
        return;
    }
    let mut hosts: Vec<String> = Vec::new();
    let mut launches: BTreeMap<String, (f64, String)> = BTreeMap::new();
    let mut weights = None;
    let mut config = None;
    for e in &q.engines {
        match attested.get(&e.id) {
            Some(Ok(a)) => {
                if let Ok(f) = &a.predicate {
                    if !hosts.contains(&f.host) {
                        hosts.push(f.host.clone());
                    }
                    let latest = launches
                        .entry(f.host.clone())
                        .or_insert((f.launched_unix, f.launched_at.clone()));
                    if f.launched_unix > latest.0 {
                        *latest = (f.launched_unix, f.launched_at.clone());
                    }
                }
                weights = weights.or(a
                    .subjects
                    .iter()
                    .find(|(n, _)| n == "weights.manifest")
                    .map(|(_, d)| *d));
                config = config.or(a
                    .subjects
                    .iter()
                    .find(|(n, _)| n == "config.json")
                    .map(|(_, d)| *d));
            }
            _ => {
                let cause = format!("attestation:{}", e.id);
                report.push(Check::not_checkable_by(
                    "host:*",
                    &cause,
                    format!("not every engine attestation verified, so the engines' hosts and weights are not known (see {cause})"),
                ));
                return;
            }
        }
    }
    let Some(weights) = weights else {
        let cause = format!("attestation:{}.subjects", q.engines[0].id);
        report.push(Check::not_checkable_by(
            "host:*",
            &cause,
            format!("no engine attests weights.manifest (see {cause})"),
        ));
        return;
    };
    let Some(verifier) = opts.attestations else {
        let cause = format!("attestation:{}", q.engines[0].id);
        report.push(Check::not_checkable_by(
            "host:*",
            &cause,
            "no --trust given: a host report nobody trusts proves nothing",
        ));
        return;
    };
    if !verifier.trusts_hosts() {
        report.push(Check::fail(
            "host:*",
            format!(
                "this run carries {} host launch-check report(s) (host_checks in qualification.json), but the trust file has no key trusted for host, so none of them can count: add the host operators' public keys (`proofpack key trust --from TRUST --host HOST.pub -o TRUST`)",
                q.host_checks.len()
            ),
        ));
        return;
    }
    let fleet = qualified_fleet(report, run, &hosts);
    let record = weights_record(report, run, weights);
    let mut reports = Vec::new();
    for path in &q.host_checks {
        let verified = run
            .small_file(path)
            .and_then(|bytes| verifier.verify_host_report(bytes));
        reports.push(crate::fleet::ReportIn {
            origin: path.clone(),
            bytes: run.collected.small.get(path).cloned().unwrap_or_default(),
            verified,
        });
    }
    let req = FleetRequirements {
        weights,
        config,
        mode: crate::fleet::Mode::SizesOnly,
        run: Expect::Is(q.name.clone()),
        fleet,
        record,
        times: time_bounds(run, &launches),
        accept_v1: true,
    };
    let (checks, _) = crate::fleet::verify_fleet(&hosts, reports, &req, "host");
    for c in checks {
        report.push(c);
    }
}

/// `hosts.qualified_fleet`: the run names its qualified fleet file, it is
/// the benchmark plan's `fleet` when the plan names one, it is in the run,
/// reads as a fleet file and selects every engine's host. Its digest is
/// what every report must name.
fn qualified_fleet(report: &mut Report, run: &Run<'_>, hosts: &[String]) -> Expect<Sha256Digest> {
    let id = "hosts.qualified_fleet";
    let unknown = |why: &str| Expect::Unknown {
        cause: id.into(),
        why: format!("{why} (see {id})"),
    };
    let Some(path) = &run.q().qualified_fleet else {
        let why = "qualification.json names no qualified fleet (\"qualified_fleet\"): host reports name the fleet they were checked for, and nothing in the run says which fleet that is, so no report is bound to a fleet";
        report.push(Check::unshown(id, why).marked(Mark::HostBinding));
        return Expect::NoEvidence(format!("the run names no qualified fleet (see {id})"));
    };
    // The plan's fleet is the one the write-up's fleet rows follow:
    // reports bound to another file would be of another fleet.
    let plan_fleet = run.plan.plan_file.as_deref().and_then(|pf| {
        run.small_file(pf)
            .ok()
            .and_then(|b| crate::run::plan::BenchmarkPlan::parse(b, pf).ok())
            .and_then(|p| p.fleet)
            .map(|f| (pf, f))
    });
    if let Some((pf, f)) = plan_fleet.filter(|(_, f)| f != path) {
        report.push(Check::fail(
            id,
            format!(
                "qualification.json's qualified_fleet is {path}, but the benchmark plan {pf} names the fleet {f}: the host reports would be bound to another fleet file than the one the run (and its write-up) names"
            ),
        ));
        return unknown("the qualified fleet is not the plan's");
    }
    let parsed = run.small_file(path).and_then(|b| {
        FleetHosts::parse(b, path)
            .map_err(|e| e.to_string())
            .map(|f| (f, b))
    });
    let (fleet, bytes) = match parsed {
        Ok(x) => x,
        Err(why) => {
            report.push(Check::fail(id, why));
            return unknown("the qualified fleet cannot be read");
        }
    };
    let missing: Vec<&String> = hosts.iter().filter(|h| !fleet.hosts.contains(h)).collect();
    if !missing.is_empty() {
        report.push(Check::fail(
            id,
            format!(
                "{path} does not select the host(s) {} that the engine attestations name: the engines did not run on the qualified fleet",
                missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
        return unknown("the qualified fleet does not hold the engines' hosts");
    }
    let digest = Sha256Digest::of_bytes(bytes);
    report.push(Check::pass(
        id,
        format!(
            "{path} ({}) selects every engine's host ({})",
            digest.prefixed(),
            hosts.join(", ")
        ),
    ));
    Expect::Is(digest)
}

/// `hosts.weights_record`: the run holds the JSON manifest record of the
/// attested weights (`weights_record`), with sizes and a header digest for
/// every `.safetensors` entry: what the sizes-only reports are held to.
fn weights_record(
    report: &mut Report,
    run: &Run<'_>,
    weights: Sha256Digest,
) -> Expect<WeightsRecord> {
    let id = "hosts.weights_record";
    let unknown = |why: &str| Expect::Unknown {
        cause: id.into(),
        why: format!("{why} (see {id})"),
    };
    let Some(path) = &run.q().weights_record else {
        let why = "qualification.json names no weights record (\"weights_record\"): the host reports' totals and shard headers have nothing to be compared with, so a sizes-only launch check could not tell swapped shards (the reports are compared with each other instead, hosts.agree)";
        report.push(Check::unshown(id, why).marked(Mark::HostBinding));
        return Expect::NoEvidence(format!("the run names no weights record (see {id})"));
    };
    let read = run.small_file(path).and_then(|b| {
        crate::manifest::Manifest::parse(b, Some(crate::manifest::Format::Json), path)
            .map(|(m, _)| m)
            .map_err(|e| e.to_string())
    });
    let m = match read {
        Ok(m) => m,
        Err(why) => {
            report.push(Check::fail(id, why));
            return unknown("the weights record cannot be read");
        }
    };
    if m.digest() != weights {
        report.push(
            Check::fail(
                id,
                format!(
                    "{path} is the record of {}, not of the attested weights.manifest",
                    m.digest().prefixed()
                ),
            )
            .with_values(weights.prefixed(), m.digest().prefixed()),
        );
        return unknown("the weights record is of other weights");
    }
    if let Err(e) = m.require_header_digests(path) {
        report.push(Check::fail(id, e.to_string()));
        return unknown("the weights record pins no shard headers");
    }
    let Some(r) = WeightsRecord::of(&m, path) else {
        report.push(Check::fail(
            id,
            format!("{path}: the record has no file sizes"),
        ));
        return unknown("the weights record has no sizes");
    };
    report.push(Check::pass(
        id,
        format!(
            "{path}: the record of the attested weights ({} files, {} bytes, {} safetensors shards with header digests)",
            r.files,
            r.bytes,
            r.shards.len()
        ),
    ));
    Expect::Is(r)
}

/// When each host's launch check must have run: after the latest launch
/// of its engines minus the stated window, before the run's first request.
fn time_bounds(
    run: &Run<'_>,
    launches: &BTreeMap<String, (f64, String)>,
) -> Expect<BTreeMap<String, TimeBounds>> {
    let q = run.q();
    let mut first: Option<f64> = None;
    for (i, p) in q.points.iter().enumerate() {
        match run.collected.clients.get(&i).and_then(|c| c.first_sent) {
            Some(t) => first = Some(first.map_or(t, |f: f64| f.min(t))),
            None => {
                let cause = format!("point:{}.records", p.name);
                return Expect::Unknown {
                    why: format!("the run's first request is not known (see {cause})"),
                    cause,
                };
            }
        }
    }
    let Some(first) = first else {
        return Expect::NotAsked("no request to bound it".into());
    };
    let window = q.host_check_window();
    let first_is = format!(
        "the run's first request ({})",
        crate::timefmt::rfc3339_utc(first.floor().max(0.0) as u64)
    );
    Expect::Is(
        launches
            .iter()
            .map(|(h, (at, text))| {
                (
                    h.clone(),
                    TimeBounds {
                        not_before: at - window,
                        not_before_is: format!(
                            "{window} s (host_check_window_s) before its engine's launch at {text}"
                        ),
                        not_after: first,
                        not_after_is: first_is.clone(),
                    },
                )
            })
            .collect(),
    )
}
