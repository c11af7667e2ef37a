//! The evidence chain of the files proofpack knows: `qualification.json`
//! names the benchmark plan; the plan names the workload, the qualified
//! fleet and the client and router revisions; the fleet names its profile
//! store (`profile_store`). A published value (a write-up's row, a pin) is
//! checked against the file its link names, never against a pointer the
//! publisher chose. Read by the write-up's row checks and by `--pins`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::digest::Sha256Digest;
use crate::run::plan::BenchmarkPlan;
use crate::run::qualification::Qualification;
use crate::strictjson::reject_duplicate_json_keys;
use crate::verify::evidence::collector::Collected;
use crate::verify::evidence::context::{file_problem, Run};

/// What the chain is read from: the run's qualification, the evidence the
/// pass collected and the files it cannot use.
pub trait Sources {
    /// The qualification.
    fn q(&self) -> &Qualification;
    /// The evidence read.
    fn collected(&self) -> &Collected;
    /// Files the run lacks or cannot use, and why.
    fn unusable(&self) -> &BTreeMap<String, String>;
}

impl Sources for Run<'_> {
    fn q(&self) -> &Qualification {
        Run::q(self)
    }
    fn collected(&self) -> &Collected {
        self.collected
    }
    fn unusable(&self) -> &BTreeMap<String, String> {
        self.unusable
    }
}

/// The file a published digest of this name is of, by its name (a pin's
/// name, a row label's slug without `-sha-256`): `workload`,
/// `qualified-fleet` (or `fleet`), `profile-store`.
pub fn link_named(name: &str) -> Option<Link> {
    match name {
        "workload" => Some(Link::Workload),
        "qualified-fleet" | "fleet" => Some(Link::Fleet),
        "profile-store" => Some(Link::ProfileStore),
        _ => None,
    }
}

/// The revision a published commit of this name is (a pin's name or a row
/// label's slug): `benchmark-client-source` or `client-source`, and any
/// `...router-source`.
pub fn revision_named(name: &str) -> Option<Revision> {
    if name == "benchmark-client-source" || name == "client-source" {
        Some(Revision::Client)
    } else if name.ends_with("router-source") {
        Some(Revision::Router)
    } else {
        None
    }
}

/// Why a link of the chain gives no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// Nothing names it: the row is not checked.
    NotNamed(String),
    /// It is named but cannot be read: the row is not checkable.
    Unusable(String),
}

/// A file the chain names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The plan's `workload`.
    Workload,
    /// The plan's `fleet`.
    Fleet,
    /// The fleet's `profile_store`.
    ProfileStore,
}

/// A revision the plan states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// `client.revision`.
    Client,
    /// `router.revision`.
    Router,
}

/// The chain of one run, its benchmark plan read once.
pub struct Chain {
    plan: Result<(String, BenchmarkPlan), Missing>,
}

fn json_of(ctx: &impl Sources, path: &str) -> Result<Value, Missing> {
    if let Some(why) = file_problem(path, ctx.collected(), ctx.unusable()) {
        return Err(Missing::Unusable(why));
    }
    let bytes = ctx
        .collected()
        .small
        .get(path)
        .ok_or_else(|| Missing::Unusable(format!("{path}: not in the run")))?;
    reject_duplicate_json_keys(bytes).map_err(|e| Missing::Unusable(format!("{path}: {e}")))?;
    serde_json::from_slice(bytes).map_err(|e| Missing::Unusable(format!("{path}: not JSON: {e}")))
}

impl Chain {
    /// Reads the benchmark plan `qualification.json` names.
    pub fn resolve(ctx: &impl Sources) -> Chain {
        let plan = match &ctx.q().plan {
            None => Err(Missing::NotNamed(
                "qualification.json names no benchmark plan".into(),
            )),
            Some(path) => match (
                file_problem(path, ctx.collected(), ctx.unusable()),
                ctx.collected().small.get(path),
            ) {
                (Some(why), _) => Err(Missing::Unusable(why)),
                (None, None) => Err(Missing::Unusable(format!("{path}: not in the run"))),
                (None, Some(b)) => BenchmarkPlan::parse(b, path)
                    .map(|p| (path.clone(), p))
                    .map_err(|e| Missing::Unusable(format!("{e} (see qualification.plan)"))),
            },
        };
        Chain { plan }
    }

    fn plan(&self) -> Result<&(String, BenchmarkPlan), Missing> {
        self.plan.as_ref().map_err(Clone::clone)
    }

    /// The path the link names, and who names it.
    pub fn path(&self, ctx: &impl Sources, link: Link) -> Result<(String, String), Missing> {
        let (plan_path, plan) = self.plan()?;
        let named = |v: &Option<String>, field: &str| {
            v.clone()
                .map(|p| (p, format!("{plan_path} {field}")))
                .ok_or_else(|| {
                    Missing::NotNamed(format!(
                        "the benchmark plan {plan_path} names no {field} (plan field \"{field}\")"
                    ))
                })
        };
        match link {
            Link::Workload => named(&plan.workload, "workload"),
            Link::Fleet => named(&plan.fleet, "fleet"),
            Link::ProfileStore => {
                let (fleet, _) = named(&plan.fleet, "fleet")?;
                match json_of(ctx, &fleet)?.get("profile_store") {
                    Some(Value::String(s)) => Ok((s.clone(), format!("{fleet} profile_store"))),
                    Some(other) => Err(Missing::Unusable(format!(
                        "{fleet}: profile_store must name a file of the run, found {other}"
                    ))),
                    None => Err(Missing::NotNamed(format!(
                        "the qualified fleet {fleet} names no profile store (\"profile_store\")"
                    ))),
                }
            }
        }
    }

    /// The SHA-256 of the file the link names.
    pub fn digest(
        &self,
        ctx: &impl Sources,
        link: Link,
    ) -> Result<(String, String, Sha256Digest), Missing> {
        let (path, by) = self.path(ctx, link)?;
        if let Some(why) = file_problem(&path, ctx.collected(), ctx.unusable()) {
            return Err(Missing::Unusable(why));
        }
        match ctx.collected().hashes.get(&path) {
            Some(d) => Ok((path, by, *d)),
            None => Err(Missing::Unusable(format!(
                "{path} (named by {by}) is not in the run"
            ))),
        }
    }

    /// The JSON value at `pointer` of the file the link names (`None` when
    /// the file has no such key).
    pub fn value(
        &self,
        ctx: &impl Sources,
        link: Link,
        pointer: &str,
    ) -> Result<(String, Option<Value>), Missing> {
        let (path, _) = self.path(ctx, link)?;
        let v = json_of(ctx, &path)?;
        Ok((path, v.pointer(pointer).cloned()))
    }

    /// A revision the plan states.
    pub fn revision(&self, which: Revision) -> Result<(String, String), Missing> {
        let (plan_path, plan) = self.plan()?;
        let (v, field) = match which {
            Revision::Client => (&plan.client_revision, "client.revision"),
            Revision::Router => (&plan.router_revision, "router.revision"),
        };
        v.clone()
            .map(|r| (r, format!("{plan_path} {field}")))
            .ok_or_else(|| {
                Missing::NotNamed(format!("the benchmark plan {plan_path} states no {field}"))
            })
    }
}
