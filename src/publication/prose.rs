//! The closed grammars of the prose statements proofpack reads by itself
//! (contract section 9.6), as data ([`FORMS`], [`RESULT_FIRST`],
//! [`RESULT_REST`], [`PLAN_FORM`], [`GATES_FORM`]), and [`read`], which
//! gives what a statement says as a typed [`Read`]: which form, and the
//! numbers, names and units it states. A statement is read only when one
//! form consumes all of it (its final `.` aside); anything else is "not
//! read" and named by the caller. The statements about how the run was
//! made have their own grammars ([`super::prose_run`]). What each is
//! checked against is decided by the qualify layer (`published`).

use super::document::squash;
use super::grammar::{read_parts, statement_matches, Slot};
use super::prose_run::RunRead;
use super::values::Decimal;

/// What a statement form states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    /// The bundle's name and SHA-256.
    Bundle,
    /// Warmup requests excluded per point, each completed.
    Warmup,
    /// Terminal requests the client and the journal recorded per point.
    Terminal,
    /// The host launch checks: every shard's size and the config hash on
    /// every host.
    LaunchChecks,
    /// The derived-input rule: the qualified fleet differs from the
    /// packaged one in exactly this key, now this value.
    DerivedInput,
    /// Full launch checks (every byte hashed) on this many hosts.
    FullLaunchChecks,
    /// The write-up's title: a benchmark qualification, of this model
    /// when one is named.
    Title,
}

/// The whole-statement forms (slots as in the cell grammars).
pub const FORMS: &[(&str, FormKind)] = &[
    (
        "the retained artifact bundle is <word> (SHA-256 <hex64>)",
        FormKind::Bundle,
    ),
    (
        "the artifact bundle is <word> (SHA-256 <hex64>)",
        FormKind::Bundle,
    ),
    ("the bundle is <word> (SHA-256 <hex64>)", FormKind::Bundle),
    (
        "the sealed bundle is <word> (SHA-256 <hex64>)",
        FormKind::Bundle,
    ),
    (
        "the table excludes <count> completed warmup request|requests per point",
        FormKind::Warmup,
    ),
    (
        "the client and the router journal each recorded <int> terminal requests including that|the warmup|warmups",
        FormKind::Terminal,
    ),
    (
        "the client and router journal each recorded <int> terminal requests including that|the warmup|warmups",
        FormKind::Terminal,
    ),
    (
        "the launch checks confirmed every shard's recorded size and the model config hash on every engine|host",
        FormKind::LaunchChecks,
    ),
    (
        "the launch checks confirmed every shard's recorded size and the model config hash on every selected host",
        FormKind::LaunchChecks,
    ),
    (
        "the launch checks hashed every shard in full on <count> hosts",
        FormKind::FullLaunchChecks,
    ),
    (
        "full SHA-256 launch checks passed on <count> hosts",
        FormKind::FullLaunchChecks,
    ),
    ("<word> benchmark qualification", FormKind::Title),
    ("<word> GPU benchmark qualification", FormKind::Title),
    ("benchmark qualification", FormKind::Title),
    (
        "the qualified fleet copy changes only <word> to <num> s|ms",
        FormKind::DerivedInput,
    ),
    (
        "the qualified fleet copy changes only <word> to <num>",
        FormKind::DerivedInput,
    ),
];

/// The first part of a result statement (the rest are [`RESULT_REST`],
/// each at most once, separated by `, `): totals over every point, or one
/// point by its offered rate.
pub const RESULT_FIRST: &[&str] = &[
    "<int>/<int> within limits",
    "both|all points: <int>/<int> within limits",
    "both|all points completed <int>/<int> within limits",
    "the <num> request/s point: <int>/<int> within limits",
    "the <num> request/s point completed <int>/<int> within limits",
];

/// The further parts of a result statement. When any failure count is
/// stated, the ones not stated must be zero (the list is the whole
/// account); "no error" states all three are zero.
pub const RESULT_REST: &[&str] = &[
    "<int> failed",
    "<int> timed out",
    "<int> cancelled",
    "no error|errors|failures",
];

/// The plan statement: "the [private ]benchmark plan declares ordered
/// <num>[, <num>...] and <num> request/s points, <int> requests each".
pub const PLAN_FORM: &str =
    "the [private] benchmark plan declares ordered <num>, ... and <num> request/s points, <int> requests each";

/// The gates statement: "the [full ]preflight passed its <gate>[, <gate>
/// ...][,] and <gate> gates".
pub const GATES_FORM: &str = "the [full] preflight passed its <gate>, ... and <gate> gates";

/// Which points a result statement is about.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope {
    /// All of them ("both" requires exactly two).
    All {
        /// Written as "both".
        both: bool,
    },
    /// The point of this offered rate.
    Rate(Decimal),
}

/// A statement as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// A whole-statement form and its slots.
    Form(FormKind, Vec<Slot>),
    /// "N/M within limits[, k failed, ...]".
    Result {
        /// The points.
        scope: Scope,
        /// Within limits.
        within: u64,
        /// Of.
        of: u64,
        /// Failed, timed out, cancelled, as stated (`Some(0)` for "no error").
        bad: [Option<u64>; 3],
    },
    /// Named preflight gates, all passed.
    Gates(Vec<String>),
    /// The plan's points.
    Plan {
        /// The offered rates, in order.
        rates: Vec<Decimal>,
        /// Requests per point.
        requests: u64,
    },
    /// A statement about how the run was made ([`super::prose_run`]).
    Run(RunRead),
}

/// The whole number a slot states: a number without a fraction, or a
/// count.
pub fn slot_int(s: &Slot) -> Option<u64> {
    match s {
        Slot::Num(d) => d.as_u64(),
        Slot::Count(n, _) => Some(*n),
        _ => None,
    }
}

/// Reads a statement with the first form that consumes all of it.
pub fn read(text: &str) -> Option<Read> {
    for (form, kind) in FORMS {
        if let Some(slots) = statement_matches(form, text) {
            return Some(Read::Form(*kind, slots));
        }
    }
    read_result(text)
        .or_else(|| read_plan(text))
        .or_else(|| read_gates(text))
        .or_else(|| super::prose_run::read(text).map(Read::Run))
}

fn read_gates(text: &str) -> Option<Read> {
    let t = squash(text);
    let t = t.strip_suffix('.').unwrap_or(&t);
    let lower = t.to_ascii_lowercase();
    // ASCII lower case keeps byte offsets: the names are taken as written.
    let lead = [
        "the preflight passed its ",
        "the full preflight passed its ",
    ]
    .into_iter()
    .find(|p| lower.starts_with(p))?;
    (lower.ends_with(" gates") && t.len() > lead.len() + " gates".len()).then_some(())?;
    let list = &t[lead.len()..t.len() - " gates".len()];
    let (head, last) = match list
        .rsplit_once(", and ")
        .or_else(|| list.rsplit_once(" and "))
    {
        Some((h, l)) => (h, Some(l)),
        None => (list, None),
    };
    let mut gates = Vec::new();
    for g in head.split(", ").chain(last) {
        let g = g.trim();
        // A gate is one or two words of letters, digits and hyphens.
        let ok = !g.is_empty()
            && g.split(' ').count() <= 2
            && g.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == ' ');
        if !ok {
            return None;
        }
        gates.push(g.to_string());
    }
    Some(Read::Gates(gates))
}

fn read_result(text: &str) -> Option<Read> {
    let t = text.trim().strip_suffix('.').unwrap_or(text.trim());
    for (k, first) in RESULT_FIRST.iter().enumerate() {
        let Ok((Some(lead), rest)) = read_parts(t, &[first], RESULT_REST) else {
            continue;
        };
        let (scope, nums) = match k {
            0 => (Scope::All { both: false }, &lead[..]),
            1 | 2 => {
                let both = matches!(&lead[0], Slot::Text(w) if w == "both");
                (Scope::All { both }, &lead[1..])
            }
            _ => match &lead[0] {
                Slot::Num(d) => (Scope::Rate(d.clone()), &lead[1..]),
                _ => return None,
            },
        };
        let within = slot_int(nums.first()?)?;
        let of = slot_int(nums.get(1)?)?;
        let mut bad = [None; 3];
        for p in rest {
            match p.form {
                3 => bad = [Some(0); 3],
                f => bad[f] = Some(slot_int(p.slots.first()?)?),
            }
        }
        return Some(Read::Result {
            scope,
            within,
            of,
            bad,
        });
    }
    None
}

fn read_plan(text: &str) -> Option<Read> {
    let t = squash(text);
    let t = t.strip_suffix('.').unwrap_or(&t).to_string();
    let lower = t.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("the benchmark plan declares ordered ")
        .or_else(|| lower.strip_prefix("the private benchmark plan declares ordered "))?;
    let (rates, tail) = rest.split_once(" request/s points, ")?;
    let requests = tail.strip_suffix(" requests each")?;
    let requests = Decimal::parse(requests)?.as_u64()?;
    let (head, last) = match rates.rsplit_once(" and ") {
        Some((h, l)) => (h, Some(l)),
        None => (rates, None),
    };
    let mut list = Vec::new();
    for r in head.split(", ").chain(last) {
        list.push(Decimal::parse(r)?);
    }
    Some(Read::Plan {
        rates: list,
        requests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_section_9_lists_the_forms() {
        let doc = include_str!("../../docs/spec/FORMATS.md")
            .replace("\\|", "|")
            .to_lowercase();
        let mut kinds = Vec::new();
        for (form, kind) in FORMS {
            // The first form of each kind is written out; the others are
            // named as its variants.
            if !kinds.contains(kind) {
                kinds.push(*kind);
                assert!(doc.contains(&form.to_lowercase()), "{form}");
            }
        }
        for form in RESULT_FIRST.iter().chain(RESULT_REST) {
            assert!(doc.contains(&form.to_lowercase()), "{form}");
        }
        let plan = PLAN_FORM.replace(", ... and", "[, <num> ...] and");
        assert!(doc.contains(&plan), "{plan}");
        let gates = GATES_FORM.replace(", ... and", "[, <gate> ...][,] and");
        assert!(doc.contains(&gates), "{gates}");
        for form in super::super::prose_run::documented_forms() {
            assert!(doc.contains(&form.to_lowercase()), "{form}");
        }
    }

    #[test]
    fn statements_are_read_whole_or_not_at_all() {
        assert!(read("The table excludes one completed warmup request per point.").is_some());
        assert!(
            read("The table excludes one completed warmup request per point, mostly.").is_none()
        );
        assert!(
            read("Both points completed 397/400 within limits, 2 failed, 1 timed out.").is_some()
        );
        assert!(read("Both points completed 397/400 within limits, 2 failed, 2 failed.").is_none());
        assert!(read("Both points completed 397/400 within limits, roughly.").is_none());
        assert_eq!(
            read("The private benchmark plan declares ordered 0.5, 1 and 2 request/s points, 200 requests each."),
            Some(Read::Plan {
                rates: ["0.5", "1", "2"].iter().map(|r| Decimal::parse(r).unwrap()).collect(),
                requests: 200
            })
        );
        assert!(read("The benchmark plan declares ordered 0.5 and about 1 request/s points, 200 requests each.").is_none());
        assert!(read("The preflight passed its gates.").is_none());
        assert!(read("The preflight passed its  gates.").is_none());
        assert_eq!(
            read("The full preflight passed its health, KV transfer, and SLO gates."),
            Some(Read::Gates(vec![
                "health".into(),
                "KV transfer".into(),
                "SLO".into()
            ]))
        );
        assert!(
            read("The preflight passed its health and SLO gates against the engines.").is_none()
        );
    }

    proptest::proptest! {
        /// Any statement: read or not, never a panic (the forms' own
        /// readers slice the text by what they found in it).
        #[test]
        fn any_statement_is_read_or_not(t in "\\PC{0,160}") {
            let _ = read(&t);
            for lead in ["The preflight passed its ", "The benchmark plan declares ordered ", "Both points completed ", "The table excludes "] {
                let _ = read(&format!("{lead}{t}"));
            }
        }
    }
}
