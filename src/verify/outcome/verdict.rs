//! The verdict line: what a green or red answer means, in one sentence.
//!
//! A verdict says plainly what it does not cover: no pins compared
//! ("unpinned"), a seal present but its signature not checked ("seal not
//! checked", never "intact"), only the structure verified. It always says
//! how many published claims were compared and names any left out, so
//! that "VERIFIED" can never stand for "nothing was checked".

use crate::report::{Kind, Mark, Reason};
pub use crate::verify::verification::SealState;
use crate::verify::verification::Verification;

/// The verdict of a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// True when the evidence holds (exit 0).
    pub holds: bool,
    /// The sentence printed at the end of the checklist.
    pub line: String,
}

/// Published claims compared and left out, from the report's claim checks
/// (those of [`Kind::Claim`]; a claim left out is named as its point's
/// `<point> <key>`).
pub fn claim_counts(v: &Verification) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut left_out = Vec::new();
    for c in v.report.checks().iter().filter(|c| c.kind() == Kind::Claim) {
        match c.ok() {
            None => {
                let rest = c.id.strip_prefix("point:").unwrap_or(&c.id);
                left_out.push(rest.replace(".claim.", " "))
            }
            Some(_) => compared += 1,
        }
    }
    (compared, left_out)
}

/// The qualifier of a run verified on client records alone: every
/// point (or the points named) has no router journal, so no second witness
/// confirmed its requests.
pub fn no_second_witness(v: &Verification) -> Option<String> {
    let points = &v.qualification.as_ref()?.points;
    let alone: Vec<&str> = points
        .iter()
        .filter(|p| p.journal.is_none())
        .map(|p| p.name.as_str())
        .collect();
    if alone.is_empty() || v.structure_only {
        None
    } else if alone.len() == points.len() {
        Some("client records only, no second witness".into())
    } else {
        Some(format!(
            "client records only for {}, no second witness",
            alone.join(", ")
        ))
    }
}

/// The qualifiers of older evidence, whose
/// bindings are not checked for want of evidence (they fail under
/// `--require-all`): no host launch checks at all (a run listing none),
/// output tokens a router log does not count,
/// host launch checks not bound to the run, its fleet or
/// its weights record (a v1 report, a run naming no `qualified_fleet` or
/// `weights_record`), and token counts not bounded by the plan (a plan
/// naming no lengths).
pub fn unbound(v: &Verification) -> Vec<&'static str> {
    let missing = |m: Mark| {
        v.report
            .checks()
            .iter()
            .any(|c| c.mark() == Some(m) && c.reason() == Some(Reason::NoEvidence))
    };
    let mut out = Vec::new();
    let no_hosts = v
        .report
        .get("host:*")
        .is_some_and(|c| c.reason() == Some(Reason::NoEvidence));
    if no_hosts {
        out.push("no host launch checks");
    }
    let unwitnessed = v.report.checks().iter().any(|c| {
        c.id.ends_with(".journal_source.tokens") && c.reason() == Some(Reason::NoEvidence)
    });
    if unwitnessed {
        out.push("output tokens not witnessed by the router log");
    }
    if missing(Mark::HostBinding) {
        out.push("host launch checks not bound to this run's fleet and weights record");
    }
    if missing(Mark::TokenBound) {
        out.push("token counts not bounded by the plan");
    }
    out
}

/// The causes of a failed report by id, the first three named (in the
/// order of [`crate::report::Report::causes`]).
fn cause_names(r: &crate::report::Report) -> String {
    let groups = r.causes().groups;
    let names: Vec<&str> = groups
        .iter()
        .take(3)
        .map(|(i, _)| r.checks()[*i].id.as_str())
        .collect();
    match groups.len().saturating_sub(3) {
        0 => names.join(", "),
        more => format!("{} and {more} more", names.join(", ")),
    }
}

/// The verdict of `v`.
pub fn verdict(v: &Verification) -> Verdict {
    let r = &v.report;
    let s = r.summary();
    let total = r.checks().len();
    let (compared, left_out) = claim_counts(v);
    let mut claims = if v.structure_only {
        String::new()
    } else if left_out.is_empty() {
        format!("; {compared} published claims compared, none left out")
    } else {
        format!(
            "; {compared} published claims compared; not published, so not compared: {}",
            left_out.join(", ")
        )
    };
    claims.push_str(&crate::verify::checks::published::verdict_part(r));
    if v.seal == SealState::Absent && v.bundle_sha256.is_some() {
        claims.push_str(
            "; no release seal beside the bundle: its bytes are not signed by a release key",
        );
    }
    if s.failed > 0 {
        let echoes = if s.not_checkable > 0 {
            format!(
                " ({} cause(s): {}; {} not checkable because of them)",
                s.causes(),
                cause_names(r),
                s.not_checkable
            )
        } else {
            String::new()
        };
        return Verdict {
            holds: false,
            line: format!(
                "FAILED: {} of {} checks failed{echoes}{claims}",
                s.failed, total
            ),
        };
    }
    let mut qualifiers = Vec::new();
    if v.structure_only {
        qualifiers.push("structure only");
    }
    if !v.pinned && !v.structure_only {
        qualifiers.push("unpinned");
    }
    if v.seal == SealState::NotChecked {
        qualifiers.push("seal not checked");
    }
    let witness = no_second_witness(v);
    if let Some(w) = &witness {
        qualifiers.push(w);
    }
    qualifiers.extend(unbound(v));
    let head = if qualifiers.is_empty() {
        "VERIFIED".to_string()
    } else {
        format!("VERIFIED ({})", qualifiers.join(", "))
    };
    let seal_note = if v.seal == SealState::NotChecked {
        "; the seal beside the bundle is well-formed and names these bytes, but its signature was not checked (pass --trust with the release key)"
    } else {
        ""
    };
    let line = if v.structure_only {
        format!(
            "{head}: the bundle's structure holds ({} checks passed){seal_note}; no qualification was verified (--structure-only)",
            s.passed
        )
    } else if !v.pinned {
        format!(
            "{head}: the run is internally consistent ({} checks passed, {} skipped{claims}), but nothing was compared with a publication; pass --publication WRITEUP.md (or --pins PINS.json){seal_note}",
            s.passed, s.skipped
        )
    } else {
        format!(
            "{head}: {} checks passed, {} skipped{claims}{seal_note}",
            s.passed, s.skipped
        )
    };
    Verdict { holds: true, line }
}
