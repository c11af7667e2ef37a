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

/// "It contains the client records, ... and the inputs pinned above":
/// every named role is a role of `qualification.json`'s `roles` map (the
/// publisher's map from role to path globs, any case) and at least one
/// file of the run matches it; where proofpack knows a role's files
/// itself (the client records, the router journal, the engine
/// attestations, the benchmark plan), the role's globs must also match
/// every one of them.
pub fn inventory(roles: &[String], ctx: &Context<'_>) -> Found {
    let mut f = found(
        format!(
            "the bundle holds files of every role named: {}",
            roles.join(", ")
        ),
        "the run's files, by qualification.json's roles map (the publisher's role globs)",
    );
    let mut actual = Vec::new();
    for role in roles {
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
        let mut b = GlobSetBuilder::new();
        for g in globs {
            match Glob::new(g) {
                Ok(g) => {
                    b.add(g);
                }
                Err(e) => return f.fails(format!("roles: {name:?}: {e}")),
            }
        }
        let set = match b.build() {
            Ok(s) => s,
            Err(e) => return f.fails(format!("roles: {name:?}: {e}")),
        };
        let matched: Vec<&str> = run_files(ctx).filter(|p| set.is_match(p)).collect();
        f = f.unless(!matched.is_empty(), || {
            format!(
                "no file of the run is of role {name:?} ({})",
                globs.join(", ")
            )
        });
        let known: Vec<String> = match name.to_ascii_lowercase().as_str() {
            "client records" => ctx
                .q
                .points
                .iter()
                .map(|p| p.client_records.clone())
                .collect(),
            "router journal" | "router journals" => ctx
                .q
                .points
                .iter()
                .filter_map(|p| p.journal.clone())
                .collect(),
            "engine attestations" => ctx
                .q
                .engines
                .iter()
                .map(|e| e.attestation.clone())
                .collect(),
            "benchmark plan" => ctx.q.plan.iter().cloned().collect(),
            _ => Vec::new(),
        };
        let outside: Vec<&String> = known.iter().filter(|k| !set.is_match(k.as_str())).collect();
        f =
            f.unless(outside.is_empty(), || {
                format!(
                "role {name:?} ({}) leaves out {}, which qualification.json names as its {name}",
                globs.join(", "),
                outside.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )
            });
        actual.push(json!({"role": name, "globs": globs, "files": matched.len()}));
    }
    f.values(json!(roles), actual)
}
