//! The checks of one host's one trusted report (`<prefix>:<host>.<sub>`):
//! what it was checked against and how, what it found, and that it
//! is bound to this run: the run's name, the fleet's digest, a time between
//! the engines' launch (minus the stated window) and the first request,
//! the manifest's totals and the shard headers of the weights record.

use std::collections::BTreeMap;

use serde_json::json;

use super::require::{Expect, FleetRequirements, TimeBounds, WeightsRecord};
use super::types::{parse_prefixed, HostCheckPredicate};
use crate::digest::Sha256Digest;
use crate::report::{Check, Mark, Reason};

/// The sub-checks of every host, in report order.
pub const SUBS: [&str; 9] = [
    "manifest", "mode", "passed", "config", "run", "fleet", "time", "totals", "shards",
];

/// One host's trusted report and its Statement's subjects.
pub struct Good {
    /// The report's file.
    pub origin: String,
    /// Its predicate.
    pub p: HostCheckPredicate,
    /// The `weights.manifest` subject.
    pub weights_subject: Option<Sha256Digest>,
    /// The `config.json` subject.
    pub config_subject: Option<Sha256Digest>,
    /// A report of the v1 predicate (`host-check:v1`): it names no
    /// run, no fleet and no shard headers, so those bindings are not shown.
    pub v1: bool,
}

/// A sub-check that compares with an expected value, or is not checked or
/// not checkable for the reason `e` gives.
fn expected<'a, T>(id: &str, e: &'a Expect<T>) -> Result<&'a T, Box<Check>> {
    match e {
        Expect::Is(v) => Ok(v),
        Expect::NotAsked(why) => Err(Box::new(Check::skip(id, why.clone()))),
        Expect::NoEvidence(why) => Err(Box::new(unbound(id, why.clone()))),
        Expect::Unknown { cause, why } => Err(Box::new(Check::not_checkable_by(id, cause, why))),
    }
}

/// A binding the evidence cannot show: not checked for want of evidence,
/// or failed under `--require-all`.
fn unbound(id: &str, why: String) -> Check {
    Check::unshown(id, why).marked(Mark::HostBinding)
}

/// A binding a v1 report cannot show: in a qualification
/// ([`FleetRequirements::accept_v1`]) not checked (or failed under
/// `--require-all`), elsewhere (`fleet verify`) failed.
fn v1_binding(id: &str, h: &str, what: &str, g: &Good, req: &FleetRequirements) -> Check {
    let why = v1_unbound(h, what, g);
    if req.accept_v1 {
        unbound(id, why)
    } else {
        Check::fail(
            id,
            format!("{why}: run `host check` again with --run and --fleet"),
        )
    }
}

/// The detail of a binding a v1 report cannot show.
fn v1_unbound(h: &str, what: &str, g: &Good) -> String {
    format!(
        "{}: host {h}'s report is of the older v1 predicate and names no {what}, so it is not shown to be this run's",
        g.origin
    )
}

/// Every sub-check of host `h`'s report `g`.
pub fn host_subchecks(id: &str, h: &str, g: &Good, req: &FleetRequirements) -> Vec<Check> {
    let sub = |s: &str| format!("{id}.{s}");
    let p = &g.p;
    let mut out = Vec::new();
    let want = req.weights.prefixed();
    let subject_ok = g.weights_subject.map(|d| d.prefixed()) == Some(p.manifest.clone());
    out.push(
        Check::outcome(
            sub("manifest"),
            p.manifest == want && subject_ok,
            if p.manifest != want {
                format!(
                    "host {h} checked against {}, not the pinned weights manifest",
                    p.manifest
                )
            } else if !subject_ok {
                format!(
                    "host {h}: the report's weights.manifest subject disagrees with its predicate"
                )
            } else {
                format!("host {h} checked against the pinned weights manifest")
            },
        )
        .with_values(want, p.manifest.clone()),
    );
    out.push(
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
    let passed = passed_check(&sub("passed"), h, p);
    let passed_ok = passed.passed();
    out.push(passed);
    out.push(config_check(&sub("config"), h, g, req));
    out.push(match expected(&sub("run"), &req.run) {
        Err(c) => *c,
        Ok(_) if g.v1 => v1_binding(&sub("run"), h, "run", g, req),
        Ok(run) => Check::outcome(
            sub("run"),
            &p.run == run,
            if &p.run == run {
                format!("host {h}'s report was made for this run, {run}")
            } else {
                format!(
                    "host {h}'s report was made for run {:?}, not this run {run:?}: a report of another run proves nothing of this one",
                    p.run
                )
            },
        )
        .with_values(run.clone(), p.run.clone()),
    });
    out.push(match expected(&sub("fleet"), &req.fleet) {
        Err(c) => *c,
        Ok(_) if g.v1 => v1_binding(&sub("fleet"), h, "fleet", g, req),
        Ok(fleet) => {
            let ok = parse_prefixed(&p.fleet).is_ok_and(|d| d == *fleet);
            Check::outcome(
                sub("fleet"),
                ok,
                if ok {
                    format!("host {h} was checked for this fleet ({})", fleet.prefixed())
                } else {
                    format!(
                        "host {h} was checked for the fleet {}, not this one ({}): the report is of another fleet",
                        p.fleet,
                        fleet.prefixed()
                    )
                },
            )
            .with_values(fleet.prefixed(), p.fleet.clone())
        }
    });
    out.push(time_check(&sub("time"), h, p, req));
    out.push(match expected(&sub("totals"), &req.record) {
        Err(c) => *c,
        Ok(r) => {
            let ok = p.files == r.files && p.bytes == r.bytes;
            Check::outcome(
                sub("totals"),
                ok,
                if ok {
                    format!(
                        "host {h}: {} files, {} bytes, as {} lists",
                        p.files, p.bytes, r.origin
                    )
                } else {
                    format!(
                        "host {h}'s report states {} files and {} bytes, but the manifest it names lists {} files and {} bytes ({})",
                        p.files, p.bytes, r.files, r.bytes, r.origin
                    )
                },
            )
            .with_values(
                json!({"files": r.files, "bytes": r.bytes}),
                json!({"files": p.files, "bytes": p.bytes}),
            )
        }
    });
    out.push(if !passed_ok {
        Check::not_checkable_by(
            sub("shards"),
            sub("passed"),
            format!("host {h}'s check did not pass (see {})", sub("passed")),
        )
    } else {
        match expected(&sub("shards"), &req.record) {
            Err(c) => *c,
            Ok(_) if g.v1 => v1_binding(&sub("shards"), h, "shard header digests", g, req),
            Ok(r) => shards_check(&sub("shards"), h, p, r),
        }
    });
    out
}

/// `.passed`: the report says it passed, names no failure and counts none;
/// a report whose three disagree is not a pass.
fn passed_check(id: &str, h: &str, p: &HostCheckPredicate) -> Check {
    let clean = p.failed == 0 && p.failures.is_empty();
    let detail = if p.passed && clean {
        format!(
            "host {h}: all {} files ({} bytes) matched ({})",
            p.files,
            p.bytes,
            p.mode.as_str()
        )
    } else if p.passed {
        format!(
            "host {h}'s report is inconsistent: passed true beside {} failed path(s) and {} named failure(s) ({}): a report that names a failure did not pass",
            p.failed,
            p.failures.len(),
            p.failures.join("; ")
        )
    } else if clean {
        format!("host {h}'s report says it did not pass, yet names no failure")
    } else {
        format!(
            "host {h}: {} path(s) did not match: {}",
            p.failed,
            p.failures.join("; ")
        )
    };
    Check::outcome(id, p.passed && clean, detail).with_values(0, p.failed)
}

/// `.config`: the config digest the host found is the pinned one. A digest
/// the operator stated (`config_source: "stated"`) was not hashed on the
/// host: it is not checked (ok null), and fails where everything must be.
fn config_check(id: &str, h: &str, g: &Good, req: &FleetRequirements) -> Check {
    let Some(c) = req.config else {
        return Check::skip(id, "no --config-pin given; not compared");
    };
    let p = &g.p;
    let got = p.config.clone();
    let subj = g.config_subject.map(|d| d.prefixed());
    let same = got.as_deref() == Some(c.prefixed().as_str()) && subj == got;
    let check = match &got {
        None => Check::fail(id, format!("host {h}: the report records no config digest")),
        Some(d) if !same => Check::fail(id, format!("host {h}: config {d}, not the pinned one")),
        Some(d) if p.config_stated() => Check::not_checked(
            id,
            Reason::StatedByPublisher,
            format!(
                "config stated, not hashed on the host: host {h}'s report states {d} but read no config file, so it does not confirm the config"
            ),
        )
        .marked(Mark::StatedConfig)
        .or_fail(format!(
            "config stated, not hashed on the host: host {h}'s report states {d} but read no config file (--require-all: what was not checked fails)"
        )),
        Some(d) => Check::pass(
            id,
            format!(
                "host {h}: config {d}, hashed on the host ({})",
                p.config_source.as_deref().unwrap_or("source not stated")
            ),
        ),
    };
    check.with_values(c.prefixed(), json!(got))
}

/// `.time`: the report's times parse and are in order, and (in a
/// qualification) lie between the engines' launch minus the stated window
/// and the run's first request.
fn time_check(id: &str, h: &str, p: &HostCheckPredicate, req: &FleetRequirements) -> Check {
    let parse = crate::timefmt::parse_rfc3339_utc;
    let (started, finished) = match (parse(&p.started_at), parse(&p.finished_at)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => {
            return Check::fail(
                id,
                format!(
                    "host {h}'s report has no readable times (started_at {:?}, finished_at {:?})",
                    p.started_at, p.finished_at
                ),
            )
        }
    };
    if started > finished {
        return Check::fail(
            id,
            format!(
                "host {h}'s check finished ({}) {:.0} s before it started ({}): no real check does",
                p.finished_at,
                started - finished,
                p.started_at
            ),
        );
    }
    let bounds: &BTreeMap<String, TimeBounds> = match &req.times {
        Expect::Is(b) => b,
        Expect::NotAsked(why) => {
            return Check::pass(
                id,
                format!(
                    "host {h} checked from {} to {}, in order; {why}",
                    p.started_at, p.finished_at
                ),
            )
        }
        Expect::NoEvidence(why) => return unbound(id, why.clone()),
        Expect::Unknown { cause, why } => return Check::not_checkable_by(id, cause, why),
    };
    let Some(b) = bounds.get(h) else {
        return Check::pass(
            id,
            format!(
                "host {h} checked from {} to {}, in order (no engine of the run names it)",
                p.started_at, p.finished_at
            ),
        );
    };
    let mut wrong = Vec::new();
    if started < b.not_before {
        wrong.push(format!(
            "it started {:.0} s before {}",
            b.not_before - started,
            b.not_before_is
        ));
    }
    if finished > b.not_after {
        wrong.push(format!(
            "it finished {:.0} s after {}",
            finished - b.not_after,
            b.not_after_is
        ));
    }
    let detail = format!(
        "host {h} checked from {} to {}",
        p.started_at, p.finished_at
    );
    let values = |c: Check| {
        c.with_values(
            json!({"not_before": b.not_before, "not_after": b.not_after}),
            json!({"started_at": started, "finished_at": finished}),
        )
    };
    if wrong.is_empty() {
        values(Check::pass(
            id,
            format!(
                "{detail}: after {} and before {}",
                b.not_before_is, b.not_after_is
            ),
        ))
    } else {
        values(Check::fail(
            id,
            format!(
                "{detail}, outside the time a launch check of this run can have: {}",
                wrong.join("; ")
            ),
        ))
    }
}

/// `.shards`: the report lists every `.safetensors` entry of the weights
/// record, each with the header digest the record pins.
fn shards_check(id: &str, h: &str, p: &HostCheckPredicate, r: &WeightsRecord) -> Check {
    let listed: BTreeMap<&str, Option<&str>> = p
        .shards
        .iter()
        .map(|s| (s.path.as_str(), s.header_sha256.as_deref()))
        .collect();
    let mut bad = Vec::new();
    let mut unpinned = 0usize;
    for (path, want) in &r.shards {
        match (listed.get(path.as_str()), want) {
            (None, _) => bad.push(format!("{path}: not listed")),
            (Some(None), _) => bad.push(format!("{path}: no readable header on the host")),
            (Some(Some(got)), Some(w)) if !got.eq_ignore_ascii_case(&w.to_hex()) => {
                bad.push(format!(
                    "{path}: header {got} on the host, {} in {}",
                    w.to_hex(),
                    r.origin
                ))
            }
            (Some(Some(_)), None) => unpinned += 1,
            _ => {}
        }
    }
    for path in listed.keys() {
        if !r.shards.contains_key(*path) {
            bad.push(format!(
                "{path}: listed, but no .safetensors entry of {}",
                r.origin
            ));
        }
    }
    if !bad.is_empty() {
        let n = bad.len();
        bad.truncate(super::types::MAX_NAMED_FAILURES);
        return Check::fail(
            id,
            format!(
                "host {h}'s shard headers are not those of the weights record ({n} difference(s)): {}",
                bad.join("; ")
            ),
        )
        .with_values(r.shards.len(), listed.len());
    }
    let note = if unpinned > 0 {
        format!("; {unpinned} entry(ies) of the record pin no header digest (its full check read their bytes)")
    } else {
        String::new()
    };
    Check::pass(
        id,
        format!(
            "host {h}: the header digests of all {} safetensors shards equal {}'s{note}",
            r.shards.len(),
            r.origin
        ),
    )
}
