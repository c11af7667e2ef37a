//! The closed grammars of the prose statements about how the run was
//! made (contract section 9.6): the plan's links and the
//! client's options, the derived-input rule's bound and margin, the direct
//! probes, the live profiles, earlier full checkpoint manifests, the
//! collector's per-point facts, the post-load check and the bundle's
//! inventory, each read into a [`RunRead`]. Each form consumes a whole
//! statement (its final `.` aside) or the statement is not read; what each
//! is checked against is decided by the qualify layer (`published`).

use super::document::squash;
use super::grammar::{statement_matches, Slot};
use super::values::Decimal;

/// Which point a per-point statement names.
#[derive(Debug, Clone, PartialEq)]
pub enum Which {
    /// "the lower-rate point" (of exactly two).
    Lower,
    /// "the higher-rate point" (of exactly two).
    Higher,
    /// "the 0.5 request/s point".
    Rate(Decimal),
}

/// A statement about how the run was made, as read.
#[derive(Debug, Clone, PartialEq)]
pub enum RunRead {
    /// "It points to the qualified fleet copy [and records the pinned
    /// benchmark client revision]" (or only the revision).
    PlanLinks {
        /// The fleet link is stated.
        fleet: bool,
        /// The client revision is stated.
        revision: bool,
    },
    /// "Both points use the client with --ttft 10 --tpot 0.3 ...".
    ClientOptions {
        /// "both" (exactly two points) rather than "all".
        both: bool,
        /// The options as written, token by token.
        args: Vec<String>,
    },
    /// "The qualified fleet copy changes only K to V s, above the observed
    /// maximum[ and leaving about M s of the T s TTFT budget after the
    /// measured prefill[ if the deadline is exhausted]]".
    DerivedBound {
        /// The slots of the derived-input rule (key, value, unit).
        rule: Vec<Slot>,
        /// The margin and the budget, when stated.
        margin: Option<(Decimal, Decimal)>,
    },
    /// "Direct probes [with a wider observation window] completed on every
    /// permitted path".
    ProbesCompleted,
    /// "First-token latency ranged from A to B s" (the probes).
    ProbeRange {
        /// Least, as written.
        min: Decimal,
        /// Greatest, as written.
        max: Decimal,
    },
    /// "Live profiles measured N-token prefill medians around X s and
    /// decode intercepts from A to B s/token".
    Profiles {
        /// The prompt length of the prefill samples.
        tokens: u64,
        /// Every engine's prefill median, as written.
        prefill: Decimal,
        /// Least decode intercept.
        lo: Decimal,
        /// Greatest decode intercept.
        hi: Decimal,
    },
    /// "[Earlier] full checkpoint manifests agree on all weight shard
    /// hashes".
    FullManifests,
    /// "Both|All intervals have complete scrape coverage[ and matching
    /// client and journal outcome counts]".
    Coverage {
        /// "both" (exactly two points).
        both: bool,
        /// The outcome counts are stated too.
        counts: bool,
    },
    /// "The lower-rate point records one counter_missing diagnostic for M".
    Diagnostic {
        /// The point.
        which: Which,
        /// How many.
        n: u64,
        /// The diagnostic's kind.
        kind: String,
        /// The metric.
        metric: String,
    },
    /// "The higher-rate point passed all collector checks".
    CollectorPassed {
        /// The point.
        which: Which,
    },
    /// "A post-load <name> check passed after the <ordinal> drain".
    PostLoad {
        /// The check's name as written.
        name: String,
        /// Which drain (1-based; `u64::MAX` for "last").
        after: u64,
    },
    /// "It contains the client records, ... and the inputs pinned above".
    Inventory {
        /// The roles named, as written (a leading "the " dropped).
        roles: Vec<String>,
    },
}

/// The fixed forms (slots as in the cell grammars).
const PROBES: &[&str] = &[
    "direct probes completed on every permitted path",
    "direct probes with a wider observation window completed on every permitted path",
];
const PROBE_RANGE: &str = "first-token latency ranged from <num> to <num> s";
const PROFILES: &str = "live profiles measured <int>-token prefill medians around <num> s and decode intercepts from <num> to <num> s/token";
const FULL_MANIFESTS: &[&str] = &[
    "earlier full checkpoint manifests agree on all weight shard hashes",
    "full checkpoint manifests agree on all weight shard hashes",
];
const COVERAGE: &[&str] = &[
    "both|all intervals have complete scrape coverage and matching client and journal outcome counts",
    "both|all intervals have complete scrape coverage",
];
const DIAGNOSTIC: &[&str] = &[
    "the lower-rate|higher-rate point records <count> <word> diagnostic|diagnostics for <word>",
    "the <num> request/s point records <count> <word> diagnostic|diagnostics for <word>",
];
const COLLECTOR: &[&str] = &[
    "the lower-rate|higher-rate point passed all collector checks",
    "the <num> request/s point passed all collector checks",
];
const DERIVED: &[&str] = &[
    "the qualified fleet copy changes only <word> to <num> s,|ms, above the observed maximum and leaving about <num> s of the <num> s TTFT budget after the measured prefill if the deadline is exhausted",
    "the qualified fleet copy changes only <word> to <num> s,|ms, above the observed maximum and leaving about <num> s of the <num> s TTFT budget after the measured prefill",
    "the qualified fleet copy changes only <word> to <num> s,|ms, above the observed maximum",
];

/// The fixed forms of this module as the contract writes them out (the
/// others are named there as their variants), for the test that holds
/// the contract to the code.
#[cfg(test)]
pub(super) fn documented_forms() -> Vec<&'static str> {
    vec![
        PROBES[0],
        PROBES[1],
        PROBE_RANGE,
        PROFILES,
        FULL_MANIFESTS[0],
        COVERAGE[1],
        DIAGNOSTIC[0],
        COLLECTOR[0],
        DERIVED[1],
        DERIVED[2],
    ]
}

fn num(s: Option<&Slot>) -> Option<Decimal> {
    match s? {
        Slot::Num(d) => Some(d.clone()),
        _ => None,
    }
}

fn which(s: &Slot) -> Option<Which> {
    match s {
        Slot::Text(t) if t == "lower-rate" => Some(Which::Lower),
        Slot::Text(t) if t == "higher-rate" => Some(Which::Higher),
        Slot::Num(d) => Some(Which::Rate(d.clone())),
        _ => None,
    }
}

/// Reads a statement with the first form that consumes all of it.
pub fn read(text: &str) -> Option<RunRead> {
    let m = |forms: &[&str]| forms.iter().find_map(|f| statement_matches(f, text));
    if m(PROBES).is_some() {
        return Some(RunRead::ProbesCompleted);
    }
    if let Some(s) = statement_matches(PROBE_RANGE, text) {
        return Some(RunRead::ProbeRange {
            min: num(s.first())?,
            max: num(s.get(1))?,
        });
    }
    if let Some(s) = statement_matches(PROFILES, text) {
        return Some(RunRead::Profiles {
            tokens: num(s.first())?.as_u64()?,
            prefill: num(s.get(1))?,
            lo: num(s.get(2))?,
            hi: num(s.get(3))?,
        });
    }
    if m(FULL_MANIFESTS).is_some() {
        return Some(RunRead::FullManifests);
    }
    for (k, f) in COVERAGE.iter().enumerate() {
        if let Some(s) = statement_matches(f, text) {
            return Some(RunRead::Coverage {
                both: matches!(s.first(), Some(Slot::Text(t)) if t == "both"),
                counts: k == 0,
            });
        }
    }
    if let Some(s) = m(DIAGNOSTIC) {
        let n = match s.get(1)? {
            Slot::Count(n, _) => *n,
            _ => return None,
        };
        let text_of = |i: usize| match s.get(i) {
            Some(Slot::Text(t)) => Some(t.clone()),
            _ => None,
        };
        return Some(RunRead::Diagnostic {
            which: which(s.first()?)?,
            n,
            kind: text_of(2)?,
            // Slot 3 is "diagnostic|diagnostics".
            metric: text_of(4)?,
        });
    }
    if let Some(s) = m(COLLECTOR) {
        return Some(RunRead::CollectorPassed {
            which: which(s.first()?)?,
        });
    }
    for (k, f) in DERIVED.iter().enumerate() {
        if let Some(s) = statement_matches(f, text) {
            // key, value, "s,"/"ms,", then margin and budget.
            let unit = match s.get(2)? {
                Slot::Text(u) => u.trim_end_matches(',').to_string(),
                _ => return None,
            };
            let rule = vec![s.first()?.clone(), s.get(1)?.clone(), Slot::Text(unit)];
            let margin = if k < 2 {
                Some((num(s.get(3))?, num(s.get(4))?))
            } else {
                None
            };
            return Some(RunRead::DerivedBound { rule, margin });
        }
    }
    read_plan_links(text)
        .or_else(|| read_client_options(text))
        .or_else(|| read_post_load(text))
        .or_else(|| read_inventory(text))
}

/// The statement as one line, its final `.` dropped, and its lower case
/// (ASCII only, so that byte offsets agree).
fn plain(text: &str) -> (String, String) {
    let t = squash(text);
    let t = t.strip_suffix('.').unwrap_or(&t).to_string();
    let lower = t.to_ascii_lowercase();
    (t, lower)
}

const PLAN_SUBJECTS: &[&str] = &[
    "it ",
    "the plan ",
    "the benchmark plan ",
    "the private benchmark plan ",
];

fn read_plan_links(text: &str) -> Option<RunRead> {
    let (_, lower) = plain(text);
    let rest = PLAN_SUBJECTS.iter().find_map(|s| lower.strip_prefix(s))?;
    let (fleet, revision) = match rest {
        "points to the qualified fleet copy and records the pinned benchmark client revision" => {
            (true, true)
        }
        "points to the qualified fleet copy" => (true, false),
        "records the pinned benchmark client revision" => (false, true),
        _ => return None,
    };
    Some(RunRead::PlanLinks { fleet, revision })
}

fn read_client_options(text: &str) -> Option<RunRead> {
    let (t, lower) = plain(text);
    let (both, lead) = [
        (true, "both points use the client with "),
        (false, "all points use the client with "),
    ]
    .into_iter()
    .find(|(_, l)| lower.starts_with(l))?;
    let args: Vec<String> = t[lead.len()..].split(' ').map(str::to_string).collect();
    // Options only: the first token is one, and no token is empty.
    (args.first()?.starts_with("--") && args.iter().all(|a| !a.is_empty())).then_some(())?;
    Some(RunRead::ClientOptions { both, args })
}

const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];

fn read_post_load(text: &str) -> Option<RunRead> {
    let (t, lower) = plain(text);
    let lead = ["a post-load ", "the post-load "]
        .into_iter()
        .find(|l| lower.starts_with(l))?;
    let (name_end, tail) = lower
        .rfind(" check passed after the ")
        .map(|at| (at, &lower[at + " check passed after the ".len()..]))?;
    // "A post-load check passed ...": no name between the two.
    if name_end < lead.len() {
        return None;
    }
    let ordinal = tail.strip_suffix(" drain")?;
    let after = if ordinal == "last" {
        u64::MAX
    } else {
        ORDINALS.iter().position(|o| *o == ordinal)? as u64 + 1
    };
    let name = t[lead.len()..name_end].trim().to_string();
    let ok = !name.is_empty()
        && name.split(' ').count() <= 4
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == ' ');
    ok.then_some(RunRead::PostLoad { name, after })
}

const INVENTORY_SUBJECTS: &[&str] = &[
    "it contains ",
    "the bundle contains ",
    "the artifact bundle contains ",
    "the retained artifact bundle contains ",
];

fn read_inventory(text: &str) -> Option<RunRead> {
    let (t, lower) = plain(text);
    let lead = INVENTORY_SUBJECTS.iter().find(|s| lower.starts_with(*s))?;
    let list = &t[lead.len()..];
    let (head, last) = match list
        .rsplit_once(", and ")
        .or_else(|| list.rsplit_once(" and "))
    {
        Some((h, l)) => (h, Some(l)),
        None => (list, None),
    };
    let mut roles = Vec::new();
    for r in head.split(", ").chain(last) {
        let r = r.trim();
        let r = r
            .strip_prefix("the ")
            .or_else(|| r.strip_prefix("The "))
            .unwrap_or(r);
        // A role is words of letters, digits, hyphens and spaces.
        let ok = !r.is_empty()
            && r.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == ' ' || c == '_');
        if !ok {
            return None;
        }
        roles.push(r.to_string());
    }
    Some(RunRead::Inventory { roles })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn the_excerpts_statements_are_read_whole_or_not_at_all() {
        assert_eq!(
            read("Direct probes with a wider observation window completed on every permitted path"),
            Some(RunRead::ProbesCompleted)
        );
        assert_eq!(
            read("first-token latency ranged from 0.401 to 5.102 s."),
            Some(RunRead::ProbeRange {
                min: d("0.401"),
                max: d("5.102")
            })
        );
        assert_eq!(
            read("Live profiles measured 8,192-token prefill medians around 0.88 s and decode intercepts from 0.2391 to 0.2399 s/token."),
            Some(RunRead::Profiles {
                tokens: 8192,
                prefill: d("0.88"),
                lo: d("0.2391"),
                hi: d("0.2399")
            })
        );
        let r = read("The qualified fleet copy changes only engine.first_token_timeout_s to 8.0 s, above the observed maximum and leaving about 1.1 s of the 10 s TTFT budget after the measured prefill if the deadline is exhausted.").unwrap();
        match r {
            RunRead::DerivedBound { rule, margin } => {
                assert_eq!(rule[0], Slot::Text("engine.first_token_timeout_s".into()));
                assert_eq!(rule[2], Slot::Text("s".into()));
                assert_eq!(margin, Some((d("1.1"), d("10"))));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            read("It points to the qualified fleet copy and records the pinned benchmark client revision."),
            Some(RunRead::PlanLinks {
                fleet: true,
                revision: true
            })
        );
        assert_eq!(
            read("Both points use the client with --ttft 10 --tpot 0.3 --attainment 0.95 --timeout 180."),
            Some(RunRead::ClientOptions {
                both: true,
                args: ["--ttft", "10", "--tpot", "0.3", "--attainment", "0.95", "--timeout", "180"]
                    .map(String::from)
                    .to_vec()
            })
        );
        assert_eq!(
            read("Both intervals have complete scrape coverage and matching client and journal outcome counts."),
            Some(RunRead::Coverage {
                both: true,
                counts: true
            })
        );
        assert_eq!(
            read("The lower-rate point records one counter_missing diagnostic for router_flips_total."),
            Some(RunRead::Diagnostic {
                which: Which::Lower,
                n: 1,
                kind: "counter_missing".into(),
                metric: "router_flips_total".into()
            })
        );
        assert_eq!(
            read("The higher-rate point passed all collector checks."),
            Some(RunRead::CollectorPassed {
                which: Which::Higher
            })
        );
        assert_eq!(
            read("A post-load KV ring check passed after the second drain."),
            Some(RunRead::PostLoad {
                name: "KV ring".into(),
                after: 2
            })
        );
        assert_eq!(
            read("It contains the client records, the router journal, per-point evidence, metric samples, profile store and samples, preflight reports, post-load check, workload, and qualified inputs."),
            Some(RunRead::Inventory {
                roles: [
                    "client records",
                    "router journal",
                    "per-point evidence",
                    "metric samples",
                    "profile store and samples",
                    "preflight reports",
                    "post-load check",
                    "workload",
                    "qualified inputs"
                ]
                .map(String::from)
                .to_vec()
            })
        );
        // A tail the grammar does not know leaves the statement unread.
        // A form with a part left out is not read (and nothing panics).
        assert_eq!(
            read("A post-load check passed after the second drain."),
            None
        );
        assert_eq!(
            read("The post-load  check passed after the last drain"),
            None
        );
        assert_eq!(read("It contains ."), None);
        assert_eq!(read("Both points use the client with"), None);
        for t in [
            "Direct probes completed on every permitted path, mostly.",
            "First-token latency ranged from 0.401 to 5.102 s on a good day.",
            "The higher-rate point passed nearly all collector checks.",
            "A post-load KV ring check passed after the second drain, twice.",
            "It contains the client records (most of them).",
            "Both points use the client with defaults.",
            "The qualified fleet copy changes only k to 8 s, above the observed maximum and more.",
        ] {
            assert_eq!(read(t), None, "{t}");
        }
    }

    proptest::proptest! {
        /// Any text: read or not, never a panic.
        #[test]
        fn any_text_is_read_or_refused(t in "\\PC{0,120}") {
            let _ = read(&t);
            let lower = t.to_ascii_lowercase();
            for lead in ["a post-load ", "it contains ", "both points use the client with ", "it "] {
                let _ = read(&format!("{lead}{lower}"));
                let _ = read(&format!("{lead}{lower} check passed after the second drain"));
            }
        }
    }
}
