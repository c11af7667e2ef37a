//! What each statement the prose grammars read
//! ([`crate::publication::prose`]) is checked against: the dispatch of a
//! [`Read`] to its check ([`check`]), and the checks of the results, the
//! warmups, the terminal requests and the plan's points. The checks of the
//! other forms are in `prose_facts`, `prose_evidence` and
//! `prose_inventory`.

use serde_json::{json, Value};

use crate::publication::grammar::Slot;
use crate::publication::prose::{slot_int, FormKind, Read, Scope};
use crate::publication::prose_run::RunRead;
use crate::publication::{Decimal, Publication};
use crate::run::qualification::Status;
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose_found::{found, plan_of, Found};

/// Checks a statement as read against the evidence.
pub fn check(r: &Read, p: &Publication, ctx: &Context<'_>) -> Found {
    use crate::verify::checks::published::{prose_evidence as ev, prose_inventory as inv};
    match r {
        Read::Run(run) => match run {
            RunRead::PlanLinks { fleet, revision } => inv::plan_links(*fleet, *revision, p, ctx),
            RunRead::ClientOptions { both, args } => inv::client_options(*both, args, ctx),
            RunRead::DerivedBound { rule, margin } => ev::derived_bound(rule, margin.as_ref(), ctx),
            RunRead::ProbesCompleted => ev::probes_completed(ctx),
            RunRead::ProbeRange { min, max } => ev::probe_range(min, max, ctx),
            RunRead::Profiles {
                tokens,
                prefill,
                lo,
                hi,
            } => ev::profiles(*tokens, prefill, lo, hi, ctx),
            RunRead::FullManifests => ev::full_manifests(ctx),
            RunRead::Coverage { both, counts } => ev::coverage(*both, *counts, ctx),
            RunRead::Diagnostic {
                which,
                n,
                kind,
                metric,
            } => ev::diagnostic(which, *n, kind, metric, ctx),
            RunRead::CollectorPassed { which } => ev::collector_passed(which, ctx),
            RunRead::PostLoad { name, after } => ev::post_load(name, *after, ctx),
            RunRead::Inventory { roles } => inv::inventory(roles, ctx),
        },
        Read::Form(FormKind::Bundle, s) => {
            crate::verify::checks::published::prose_facts::bundle(s, ctx)
        }
        Read::Form(FormKind::Warmup, s) => warmup(s, ctx),
        Read::Form(FormKind::Terminal, s) => terminal(s, ctx),
        Read::Form(FormKind::LaunchChecks, _) => {
            crate::verify::checks::published::prose_facts::launch_checks(ctx)
        }
        Read::Form(FormKind::DerivedInput, s) => {
            crate::verify::checks::published::prose_facts::derived_input(s, ctx)
        }
        Read::Form(FormKind::FullLaunchChecks, s) => {
            crate::verify::checks::published::prose_facts::full_launch_checks(
                s.first().and_then(slot_int),
                ctx,
            )
        }
        Read::Form(FormKind::Title, s) => {
            crate::verify::checks::published::prose_facts::title(s, ctx)
        }
        Read::Gates(g) => crate::verify::checks::published::prose_facts::gates(g, ctx),
        Read::Result {
            scope,
            within,
            of,
            bad,
        } => result(scope, *within, *of, bad, ctx),
        Read::Plan { rates, requests } => plan(rates, *requests, ctx),
    }
}

fn warmup(s: &[Slot], ctx: &Context<'_>) -> Found {
    let n = s.first().and_then(slot_int).unwrap_or(u64::MAX);
    let mut f = found(
        format!("{n} completed warmup request(s) per point, excluded"),
        "each point's declared warmup and its client records marked warmup with status ok",
    );
    let mut actual = Vec::new();
    for (i, p) in ctx.q.points.iter().enumerate() {
        let Some(c) = ctx.collected.clients.get(&i) else {
            return f.fails(format!(
                "point {}: its client records were not read",
                p.name
            ));
        };
        let done = c
            .ids
            .values()
            .filter(|r| r.warmup && r.status == Status::Ok)
            .count() as u64;
        actual.push(
            json!({"point": p.name, "declared": p.warmup, "records": c.warmups, "completed": done}),
        );
        f = f.unless(p.warmup == n && c.warmups == n && done == n, || {
            format!(
                "point {} declares {} warmup(s); its client records hold {} marked warmup, {} of them completed",
                p.name, p.warmup, c.warmups, done
            )
        });
    }
    f.values(n, actual)
}

fn terminal(s: &[Slot], ctx: &Context<'_>) -> Found {
    let n = s.first().and_then(slot_int).unwrap_or(u64::MAX);
    let mut f = found(
        format!("{n} terminal requests per point in the client records and in the router journal, warmups included"),
        "each point's client records (distinct request ids) and its journal's request ids with a terminal event",
    );
    let mut actual = Vec::new();
    for (i, p) in ctx.q.points.iter().enumerate() {
        let Some(c) = ctx.collected.clients.get(&i) else {
            return f.fails(format!(
                "point {}: its client records were not read",
                p.name
            ));
        };
        let client = c.ids.len() as u64;
        let journal = p
            .journal
            .as_deref()
            .and_then(|path| ctx.collected.journals.get(path))
            .and_then(|j| j.points.get(&p.name))
            .map(|m| m.terminal_statuses(c).count() as u64);
        actual.push(json!({"point": p.name, "client": client, "client_records": c.records, "journal": journal}));
        f = f.unless(
            client == n && c.records == n && journal == Some(n),
            || {
                format!(
                    "point {}: the client records hold {} record(s) of {} request id(s), the journal {} ({})",
                    p.name,
                    c.records,
                    client,
                    journal.map_or("was not read".to_string(), |j| format!("{j} request id(s) with a terminal event")),
                    p.journal.as_deref().unwrap_or("the point names no journal")
                )
            },
        );
    }
    f.values(n, actual)
}

fn result(scope: &Scope, within: u64, of: u64, bad: &[Option<u64>; 3], ctx: &Context<'_>) -> Found {
    let (rows, what): (Vec<_>, String) = match scope {
        Scope::All { .. } => (ctx.rows.iter().collect(), "over every point".into()),
        Scope::Rate(d) => (
            ctx.rows
                .iter()
                .filter(|r| (r.offered_rate - d.value).abs() < 1e-9)
                .collect(),
            format!("at {} request/s", d.text),
        ),
    };
    let mut f = found(
        format!("{within}/{of} within limits {what}{}", describe_bad(bad)),
        "the points' client records, recomputed",
    );
    if let Scope::All { both: true } = scope {
        f = f.unless(ctx.q.points.len() == 2, || {
            format!(
                "\"both\" points, but the run declares {}",
                ctx.q.points.len()
            )
        });
    }
    if let Scope::All { .. } = scope {
        f = f.unless(rows.len() == ctx.q.points.len(), || {
            "not every point's records could be recomputed".into()
        });
    }
    if let Scope::Rate(d) = scope {
        let declared = ctx
            .q
            .points
            .iter()
            .filter(|p| (p.offered_rate - d.value).abs() < 1e-9)
            .count();
        if declared > 1 {
            return f.fails(format!(
                "{declared} points of the run have {} request/s: \"the {} request/s point\" is no one point",
                d.text, d.text
            ));
        }
    }
    if rows.is_empty() {
        return f.fails("no point of the run has this offered rate");
    }
    let sum =
        |g: &dyn Fn(&crate::run::metrics::PointRow) -> u64| rows.iter().map(|r| g(r)).sum::<u64>();
    let got_within = sum(&|r| r.metrics.within_limits);
    let got_of = sum(&|r| r.requests);
    let got_bad = [
        sum(&|r| r.metrics.errors),
        sum(&|r| r.metrics.timeouts),
        sum(&|r| r.metrics.cancelled),
    ];
    let stated_any = bad.iter().any(Option::is_some);
    let bad_ok = bad
        .iter()
        .zip(got_bad)
        .all(|(s, g)| s.map_or(!stated_any || g == 0, |s| s == g));
    let actual = format!(
        "{got_within}/{got_of} within limits, {} failed, {} timed out, {} cancelled",
        got_bad[0], got_bad[1], got_bad[2]
    );
    f = f.unless(got_within == within && got_of == of && bad_ok, || {
        format!("the records give {actual}")
    });
    let expected = format!("{within}/{of} within limits{}", describe_bad(bad));
    f.values(expected, actual)
}

fn describe_bad(bad: &[Option<u64>; 3]) -> String {
    let mut s = String::new();
    for (v, w) in bad.iter().zip(["failed", "timed out", "cancelled"]) {
        if let Some(v) = v {
            s.push_str(&format!(", {v} {w}"));
        }
    }
    s
}

fn plan(rates: &[Decimal], requests: u64, ctx: &Context<'_>) -> Found {
    let written: Vec<&str> = rates.iter().map(|d| d.text.as_str()).collect();
    let f = found(
        format!(
            "the plan declares points at {} request/s, in this order, {requests} requests each",
            written.join(", ")
        ),
        "the benchmark plan qualification.json names",
    );
    let (path, plan) = match plan_of(ctx) {
        Ok(p) => p,
        Err(e) => return f.fails(e),
    };
    let got: Vec<(f64, u64)> = plan
        .points
        .iter()
        .map(|p| (p.offered_rate, p.requests))
        .collect();
    let holds = got.len() == rates.len()
        && got
            .iter()
            .zip(rates)
            .all(|((r, n), d)| (r - d.value).abs() < 1e-9 && *n == requests);
    let actual: Vec<Value> = got
        .iter()
        .map(|(r, n)| json!({"offered_rate": r, "requests": n}))
        .collect();
    f.unless(holds, || {
        format!(
            "{path} declares {}",
            got.iter()
                .map(|(r, n)| format!("{r} request/s ({n} requests)"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
    .values(
        json!({"offered_rates": written, "requests": requests}),
        actual,
    )
}
