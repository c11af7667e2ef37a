//! The statements of the write-up's prose, checked (contract section 9.6):
//! each statement the publication layer found
//! ([`crate::publication::statements`]) becomes a check
//! `publication:statement:<line>[.<k>]` carrying `"source": {"line",
//! "text"}`. A statement one of the closed grammars of
//! [`crate::publication::prose`] reads is checked against the sealed
//! evidence ([`prose`]); any other is not checked (reason `not_read`, "no
//! grammar reads it") and fails under `--require-all`.

use crate::publication::prose::{self as grammar, Read};
use crate::publication::{Publication, Statement};
use crate::report::{Check, Reason, Report};
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose;

/// What the detail of a statement no grammar reads says.
pub const NOT_READ: &str = "no grammar of proofpack reads this statement";

/// The id of the check of statement `s`.
pub fn statement_id(s: &Statement) -> String {
    format!("publication:statement:{}", s.id)
}

/// Appends one check per statement of the prose.
pub fn statement_checks(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    use crate::verify::checks::published::bindings;
    // The bindings were located before the evidence was read; an
    // automaton that cannot be built binds nothing here.
    let texts = bindings::Texts::new(ctx.q).ok();
    for s in &p.statements {
        let id = statement_id(s);
        let at = format!("{}:{}", p.origin, s.line);
        let bound = texts
            .as_ref()
            .map(|t| bindings::bound(s, ctx.q, t))
            .unwrap_or_default();
        let c = match grammar::read(&s.text) {
            Some(r) => check(id, &at, &r, p, ctx),
            // No grammar reads it, but the publisher bound it.
            None if !bound.is_empty() => {
                crate::verify::checks::published::bindings::check(id, &at, &s.text, &bound, ctx)
            }
            None => {
                let why = format!(
                    "{at}: {:?}: {NOT_READ} (contract section 9.6 lists the ones it reads): what it says is not checked",
                    s.text
                );
                Check::not_checked(id, Reason::NotRead, format!("not checked: {why}"))
                    .or_fail(format!("{why}; --require-all"))
            }
        };
        report.push(c.about_statement(s.line, &s.text));
    }
}

/// What the check of a statement read by `r` needs (the evidence its
/// form reads): the benchmark plan for the plan, gates and run forms;
/// every point's records for the counts, windows and
/// collector forms; every journal too where the journal's outcome counts
/// are stated; the hosts' launch checks for the launch-check forms.
fn needs(r: &Read, ctx: &Context<'_>) -> Vec<String> {
    use crate::publication::prose::FormKind;
    use crate::publication::prose_run::RunRead;
    use crate::verify::needs::{all_journals, all_records};
    let reads_plan = matches!(r, Read::Plan { .. } | Read::Gates(_) | Read::Run(_));
    let (records, journals) = match r {
        Read::Result { .. } | Read::Form(FormKind::Warmup, _) => (true, false),
        Read::Form(FormKind::Terminal, _) => (true, true),
        Read::Form(FormKind::LaunchChecks | FormKind::FullLaunchChecks, _) => {
            return vec!["host:*".to_string()]
        }
        Read::Run(run) => match run {
            RunRead::Coverage { counts, .. } => (true, *counts),
            RunRead::CollectorPassed { .. } => (true, true),
            RunRead::Diagnostic { .. } | RunRead::PostLoad { .. } => (true, false),
            _ => (false, false),
        },
        _ => (false, false),
    };
    let mut out = Vec::new();
    if reads_plan {
        out.push("qualification.plan".to_string());
    }
    if records {
        out.extend(all_records(ctx.q));
    }
    if journals {
        out.extend(all_journals(ctx.q));
    }
    out
}

fn check(id: String, at: &str, r: &Read, p: &Publication, ctx: &Context<'_>) -> Check {
    let needed = needs(r, ctx);
    let o = prose::check(r, p, ctx);
    let detail = format!("{at}: {} ({})", o.what, o.against);
    let c = match (o.ok, o.cause) {
        (Ok(()), _) if o.publisher.is_some() => {
            let why = format!("{detail}: {}", o.publisher.unwrap_or_default());
            Check::not_checked(id, Reason::StatedByPublisher, format!("not checked: {why}"))
                .or_fail(format!("{why}; --require-all"))
        }
        (Ok(()), _) => Check::pass(id, detail),
        (Err(why), Some(cause)) => Check::not_checkable_by(id, cause, format!("{detail}: {why}")),
        (Err(why), None) => Check::fail(id, format!("{detail}: {why}")),
    };
    let c = match (o.expected, o.actual) {
        (Some(e), Some(a)) => c.with_values(e, a),
        _ => c,
    };
    c.needing(needed)
}
