//! What a check of one prose statement found ([`Found`]), and the
//! benchmark plan the statement checks read: shared by the checks of what
//! the prose grammars read (`prose`) and the checks of the facts a
//! statement names (`prose_facts`, `prose_evidence`, `prose_inventory`),
//! below them all.

use serde_json::Value;

use crate::publication::Decimal;
use crate::run::plan::BenchmarkPlan;
use crate::run::qualification::MIN_SIGNIFICANT_DIGITS;
use crate::verify::checks::published::context::Context;

/// What a check of a statement found.
pub struct Found {
    /// What the statement states, in proofpack's words.
    pub what: String,
    /// What it was checked against.
    pub against: String,
    /// Holds, or why not.
    pub ok: Result<(), String>,
    /// The published value.
    pub expected: Option<Value>,
    /// The value from the evidence.
    pub actual: Option<Value>,
    /// The failed check this one cannot be checked without (it is then
    /// "not checkable", not a cause of its own).
    pub cause: Option<String>,
    /// Where what holds rests only on words the publisher chose (a role
    /// name of its own): why. The statement is then not checked (reason
    /// `stated_by_publisher`), unless something else failed.
    pub publisher: Option<String>,
}

/// The rule of the cells for a measured number of the prose (contract
/// section 9.6): at least [`MIN_SIGNIFICANT_DIGITS`] significant digits,
/// or one fewer where the sentence says it is approximate ("around",
/// "about"); else why it is too coarse to check (half a unit of its last
/// digit would hide a difference of 5% or more).
pub(super) fn too_coarse(d: &Decimal, approximate: bool) -> Option<String> {
    let need = MIN_SIGNIFICANT_DIGITS - u32::from(approximate);
    (d.significant < need).then(|| {
        format!(
            "{} has {} significant digit(s), too coarse to check: a measured number of the prose needs at least {need}{}",
            d.text,
            d.significant,
            if approximate { " after \"about\" or \"around\"" } else { "" }
        )
    })
}

/// Every number of `nums` ([`too_coarse`]) precise enough, or why not.
pub(super) fn precise(nums: &[(&Decimal, bool)]) -> Result<(), String> {
    let why: Vec<String> = nums.iter().filter_map(|(d, a)| too_coarse(d, *a)).collect();
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

pub(super) fn found(what: impl Into<String>, against: impl Into<String>) -> Found {
    Found {
        what: what.into(),
        against: against.into(),
        ok: Ok(()),
        expected: None,
        actual: None,
        cause: None,
        publisher: None,
    }
}

impl Found {
    pub(super) fn values(mut self, e: impl Into<Value>, a: impl Into<Value>) -> Found {
        self.expected = Some(e.into());
        self.actual = Some(a.into());
        self
    }
    pub(super) fn fails(mut self, why: impl Into<String>) -> Found {
        if self.ok.is_ok() {
            self.ok = Err(why.into());
        }
        self
    }
    pub(super) fn unless(self, holds: bool, why: impl FnOnce() -> String) -> Found {
        if holds {
            self
        } else {
            self.fails(why())
        }
    }
}

/// The benchmark plan `qualification.json` names, parsed, with its path.
pub fn plan_of(ctx: &Context<'_>) -> Result<(String, BenchmarkPlan), String> {
    let path = ctx
        .q
        .plan
        .clone()
        .ok_or("qualification.json names no benchmark plan (plan)")?;
    if let Some(why) =
        crate::verify::evidence::context::file_problem(&path, ctx.collected, ctx.unusable)
    {
        return Err(why);
    }
    let plan = ctx
        .collected
        .small
        .get(&path)
        .ok_or_else(|| format!("{path}: not in the run"))
        .and_then(|b| BenchmarkPlan::parse(b, &path))?;
    Ok((path, plan))
}

/// A JSON file of the run, parsed (duplicate keys refused).
pub(super) fn json_file(ctx: &Context<'_>, path: &str) -> Result<serde_json::Value, String> {
    if let Some(why) =
        crate::verify::evidence::context::file_problem(path, ctx.collected, ctx.unusable)
    {
        return Err(why);
    }
    let bytes = ctx
        .collected
        .small
        .get(path)
        .ok_or_else(|| format!("{path}: not in the run"))?;
    crate::strictjson::reject_duplicate_json_keys(bytes).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_slice(bytes).map_err(|e| format!("{path}: not JSON: {e}"))
}
