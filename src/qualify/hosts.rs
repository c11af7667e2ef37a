//! The host launch-check reports a qualification lists (v1.1): every
//! engine's host (as its verified attestation names it) has exactly one
//! passing report, by a key trusted for `host`, for the attested weights
//! manifest and config, and no report is for another host. The reports are
//! judged by the fleet layer's rules ([`crate::fleet::verify_fleet`]), the
//! same as `fleet verify`.

use std::collections::BTreeMap;

use super::context::Run;
use super::{AttestedEngine, Options};
use crate::report::{Check, Reason, Report};

/// Appends the `host:*` checks.
pub fn host_checks(
    report: &mut Report,
    run: &Run<'_>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    opts: &Options<'_>,
) {
    let q = run.q();
    if q.host_checks.is_empty() {
        report.push(Check::not_checked(
            "host:*",
            Reason::NoEvidence,
            "qualification.json lists no host launch-check reports (host_checks); no per-host check was verified",
        ));
        return;
    }
    let mut hosts: Vec<String> = Vec::new();
    let mut weights = None;
    let mut config = None;
    for e in &q.engines {
        match attested.get(&e.id) {
            Some(Ok(a)) => {
                if let Ok(f) = &a.predicate {
                    if !hosts.contains(&f.host) {
                        hosts.push(f.host.clone());
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
                report.push(Check::not_checkable(
                    "host:*",
                    "not every engine attestation verified, so the engines' hosts and weights are not known (see attestation:*)",
                ));
                return;
            }
        }
    }
    let Some(weights) = weights else {
        report.push(Check::not_checkable(
            "host:*",
            "no engine attests weights.manifest",
        ));
        return;
    };
    let Some(verifier) = opts.attestations else {
        report.push(Check::not_checkable(
            "host:*",
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
    let req = crate::fleet::FleetRequirements {
        weights,
        config,
        mode: crate::fleet::Mode::SizesOnly,
    };
    let (checks, _) = crate::fleet::verify_fleet(&hosts, reports, &req, "host");
    for c in checks {
        report.push(c);
    }
}
