//! What the statements about the plan's links, the client's options and
//! the bundle's inventory are checked against (contract section 9.6):
//! the benchmark plan `qualification.json` names, the write-up's
//! own pinned-inputs table, and the files of the run by role.

use globset::{Glob, GlobSetBuilder};
use serde_json::json;

use crate::publication::{Pinned, Publication};
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose_found::{found, plan_of, Found};

/// "It points to the qualified fleet copy [and records the pinned
/// benchmark client revision]": the plan's `fleet` is the run's qualified
/// fleet (`qualified_fleet`, or the one file every engine's host is
/// checked against), and its `client.revision` is the commit the write-up
/// pins in its "Benchmark client source" row.
pub fn plan_links(fleet: bool, revision: bool, p: &Publication, ctx: &Context<'_>) -> Found {
    let f = found(
        match (fleet, revision) {
            (true, true) => "the benchmark plan names the qualified fleet and the pinned client revision",
            (true, false) => "the benchmark plan names the qualified fleet",
            _ => "the benchmark plan records the pinned client revision",
        },
        "the plan qualification.json names, qualified_fleet, and the write-up's benchmark client source row",
    );
    let (path, plan) = match plan_of(ctx) {
        Ok(x) => x,
        Err(e) => return f.fails(e),
    };
    let mut f = f;
    if fleet {
        f = match (&plan.fleet, &ctx.q.qualified_fleet) {
            (None, _) => f.fails(format!("{path} names no fleet")),
            (_, None) => f.fails(
                "qualification.json names no qualified fleet (qualified_fleet) to compare with",
            ),
            (Some(a), Some(b)) => f.unless(a == b, || {
                format!("{path} names the fleet {a}; the run's qualified fleet is {b}")
            }),
        };
    }
    if revision {
        let pinned: Vec<&str> = p
            .pinned
            .iter()
            .filter(|r| r.slug == "benchmark-client-source")
            .filter_map(|r| match &r.kind {
                Pinned::Commit(c) => Some(c.as_str()),
                _ => None,
            })
            .collect();
        f = match (&plan.client_revision, pinned.as_slice()) {
            (None, _) => f.fails(format!("{path} states no client.revision")),
            (_, []) => f.fails("the write-up pins no benchmark client source (a \"Benchmark client source\" row with a commit)"),
            (Some(r), [c]) => f.unless(r.eq_ignore_ascii_case(c), || {
                format!("{path} records client revision {r}; the write-up pins {c}")
            }),
            (_, _) => f.fails("the write-up pins the benchmark client source twice"),
        };
    }
    f.values(
        json!({"fleet": fleet, "client_revision": revision}),
        json!({"plan": path, "fleet": plan.fleet, "client_revision": plan.client_revision}),
    )
}

/// "Both|All points use the client with --a x --b y": the plan records
/// exactly these options (`client.args`) for every point, token for
/// token.
pub fn client_options(both: bool, args: &[String], ctx: &Context<'_>) -> Found {
    let mut f = found(
        format!("every point ran the client with {}", args.join(" ")),
        "the options the benchmark plan records (client.args)",
    );
    if both {
        f = f.unless(ctx.q.points.len() == 2, || {
            format!("\"both\" points, but the run has {}", ctx.q.points.len())
        });
    }
    let (path, plan) = match plan_of(ctx) {
        Ok(x) => x,
        Err(e) => return f.fails(e),
    };
    match plan.client_args {
        None => f.fails(format!("{path} records no client options (client.args)")),
        Some(got) => f
            .unless(got == args, || {
                format!("{path} records the client options {}", got.join(" "))
            })
            .values(json!(args), json!(got)),
    }
}

/// The files of the run the checks saw.
fn run_files<'a>(ctx: &'a Context<'_>) -> impl Iterator<Item = &'a str> {
    ctx.collected.hashes.keys().map(String::as_str)
}

/// The roles a bundle's inventory may name (any case): the kinds of file
/// proofpack knows. A name outside it is one the publisher chose, and a
/// name is no evidence of what it says ("client logs with zero failed
/// requests").
pub const ROLES: &[&str] = &[
    "client records",
    "router journal",
    "router journals",
    "engine attestations",
    "benchmark plan",
    "collector reports",
    "profile samples",
    "preflight report",
    "post-load check",
    "inputs pinned above",
];

/// "It contains the client records, ... and the inputs pinned above":
/// every named role is one of [`ROLES`] and a role of `qualification.json`'s
/// `roles` map (the publisher's map from role to path globs, any case), and
/// at least one file of the run matches it; where proofpack knows a role's
/// files itself (the client records, the router journal, the engine
/// attestations, the benchmark plan, the collector reports, the preflight
/// report, the post-load check), the role's globs must also match every
/// one of them. A role outside [`ROLES`] leaves the statement not checked:
/// only the publisher says what its files are.
pub fn inventory(roles: &[String], ctx: &Context<'_>) -> Found {
    let mut f = found(
        format!(
            "the bundle holds files of every role named: {}",
            roles.join(", ")
        ),
        "the run's files, by qualification.json's roles map (the publisher's role globs)",
    );
    let mut actual = Vec::new();
    let mut own = Vec::new();
    for role in roles {
        if !ROLES.iter().any(|r| r.eq_ignore_ascii_case(role)) {
            own.push(role.as_str());
        }
        let Some((name, globs)) = ctx
            .q
            .roles
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(role))
        else {
            f = f.fails(format!(
                "qualification.json's roles map has no role {role:?}"
            ));
            continue;
        };
        let set = match glob_set(name, globs) {
            Ok(s) => s,
            Err(why) => return f.fails(why),
        };
        let matched: Vec<&str> = run_files(ctx).filter(|p| set.is_match(p)).collect();
        f = f.unless(!matched.is_empty(), || {
            format!(
                "no file of the run is of role {name:?} ({})",
                globs.join(", ")
            )
        });
        let known = known_files(name, ctx);
        let outside: Vec<&String> = known.iter().filter(|k| !set.is_match(k.as_str())).collect();
        f = f.unless(outside.is_empty(), || {
            format!(
                "role {name:?} ({}) leaves out {}, which the run names as its {name}",
                globs.join(", "),
                outside
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        actual.push(json!({"role": name, "globs": globs, "files": matched.len()}));
    }
    if !own.is_empty() {
        f.publisher = Some(format!(
            "{} {} a name the publisher chose (qualification.json's roles map), not a kind of file proofpack knows ({}): what the files hold is only the publisher's word",
            own.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(", "),
            if own.len() == 1 { "is" } else { "are" },
            ROLES.join(", ")
        ));
    }
    f.values(json!(roles), actual)
}

fn glob_set(name: &str, globs: &[String]) -> Result<globset::GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| format!("roles: {name:?}: {e}"))?);
    }
    b.build().map_err(|e| format!("roles: {name:?}: {e}"))
}

/// The files of a role that the run itself names (qualification.json or
/// its benchmark plan), where proofpack knows them.
fn known_files(role: &str, ctx: &Context<'_>) -> Vec<String> {
    let q = ctx.q;
    let plan = || plan_of(ctx).ok().map(|(_, p)| p);
    match role.to_ascii_lowercase().as_str() {
        "client records" => q.points.iter().map(|p| p.client_records.clone()).collect(),
        "router journal" | "router journals" => {
            q.points.iter().filter_map(|p| p.journal.clone()).collect()
        }
        "engine attestations" => q.engines.iter().map(|e| e.attestation.clone()).collect(),
        "benchmark plan" => q.plan.iter().cloned().collect(),
        "collector reports" => plan()
            .map(|p| {
                p.points
                    .iter()
                    .filter_map(|pp| pp.collector.clone())
                    .collect()
            })
            .unwrap_or_default(),
        "preflight report" => plan().and_then(|p| p.preflight).into_iter().collect(),
        "post-load check" => plan().and_then(|p| p.post_load).into_iter().collect(),
        _ => Vec::new(),
    }
}
