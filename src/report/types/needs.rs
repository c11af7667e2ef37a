//! What a check needs, and the one dependency rule that settles a report
//! by it ([`Report::settle_needs`]).

use std::collections::HashMap;

use super::{Check, Outcome, Report, NOT_CHECKABLE};

impl Check {
    /// The same check, which needs the checks `ids` (ids, or prefixes
    /// ending in `*`): where one of them fails (or is not checkable), this
    /// one is not checkable under it ([`Report::settle_needs`]).
    pub fn needing<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.needs.extend(ids.into_iter().map(Into::into));
        self
    }
    /// What it needs ([`Check::needing`]).
    pub fn needs(&self) -> &[String] {
        &self.needs
    }
    /// Makes it not checkable because `cause` failed: what it found
    /// without it is not shown as checked.
    pub(super) fn depends_on_failed(&mut self, cause: &str) {
        if let Outcome::NotCheckable { cause: Some(_) } = self.outcome {
            return;
        }
        if !self.is_not_checkable() {
            self.detail = format!(
                "{NOT_CHECKABLE}it needs {cause}, which did not hold (what it read without it is not a check)"
            );
            self.expected = None;
            self.actual = None;
            self.mark = None;
        }
        self.outcome = Outcome::NotCheckable {
            cause: Some(cause.to_string()),
        };
    }
}

impl Report {
    /// Adds to every check what `needs_of` says it needs
    /// ([`Check::needing`]).
    pub fn add_needs(&mut self, needs_of: impl Fn(&Check) -> Vec<String>) {
        for c in &mut self.checks {
            let more = needs_of(c);
            c.needs.extend(more);
        }
    }

    /// The one dependency rule: a check that needs a check which failed
    /// (or is not checkable) is not checkable, its cause the first such
    /// check it names, however it came out on its own; applied until
    /// nothing changes, so what depends on a dependent follows it. A
    /// check not checked (not asked for, no evidence, not read) stays so.
    pub fn settle_needs(&mut self) {
        let index: HashMap<String, usize> = self
            .checks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.clone(), i))
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..self.checks.len() {
                let c = &self.checks[i];
                if c.needs.is_empty()
                    || matches!(
                        c.outcome,
                        Outcome::NotChecked(_) | Outcome::NotCheckable { cause: Some(_) }
                    )
                {
                    continue;
                }
                let cause = c.needs.iter().find_map(|n| self.failed_need(n, i, &index));
                if let Some(cause) = cause {
                    self.checks[i].depends_on_failed(&cause);
                    changed = true;
                }
            }
        }
    }

    /// The first check `need` names (an id, or a prefix ending in `*`)
    /// that failed or is not checkable, other than check `me` and other
    /// than one not checkable because of `me` (no circle hides a cause).
    fn failed_need(&self, need: &str, me: usize, index: &HashMap<String, usize>) -> Option<String> {
        let usable = |j: usize| j != me && self.checks[j].failed() && !self.rests_on(j, me, index);
        let j = match need.strip_suffix('*') {
            Some(prefix) => {
                (0..self.checks.len()).find(|&j| self.checks[j].id.starts_with(prefix) && usable(j))
            }
            None => index.get(need).copied().filter(|&j| usable(j)),
        }?;
        Some(self.checks[j].id.clone())
    }

    /// Whether check `j` is not checkable, through its chain of causes,
    /// because of check `me`.
    fn rests_on(&self, mut j: usize, me: usize, index: &HashMap<String, usize>) -> bool {
        for _ in 0..self.checks.len() {
            let Outcome::NotCheckable { cause: Some(c) } = &self.checks[j].outcome else {
                return false;
            };
            match index.get(c) {
                Some(&k) if k == me => return true,
                Some(&k) => j = k,
                None => return false,
            }
        }
        true
    }
}

/// The failed checks of a report grouped under their root causes: each
/// check that failed on its own evidence (a cause), the one most others
/// rest on first (then in report order), with
/// the checks not checkable because of it, directly or through others.
#[derive(Debug, Default, PartialEq)]
pub struct Causes {
    /// (the cause's index, its dependents' indices in report order).
    pub groups: Vec<(usize, Vec<usize>)>,
    /// Checks not checkable whose cause names no failed check.
    pub unattributed: Vec<usize>,
}

/// Groups the failed items `0..n` by cause: `own(i)` says item `i`
/// failed on its own evidence, `dependent(i)` that it is not checkable,
/// `cause(i)` the item it names as its cause. Usable on a [`Report`] and
/// on its JSON alike.
pub fn group_by_cause(
    n: usize,
    own: impl Fn(usize) -> bool,
    dependent: impl Fn(usize) -> bool,
    cause: impl Fn(usize) -> Option<usize>,
) -> Causes {
    let root = |mut i: usize| -> Option<usize> {
        for _ in 0..=n {
            if own(i) {
                return Some(i);
            }
            i = cause(i)?;
        }
        None
    };
    let mut out = Causes::default();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for i in (0..n).filter(|&i| own(i)) {
        at.insert(i, out.groups.len());
        out.groups.push((i, Vec::new()));
    }
    for i in (0..n).filter(|&i| dependent(i)) {
        match root(i).and_then(|r| at.get(&r)) {
            Some(&g) => out.groups[g].1.push(i),
            None => out.unattributed.push(i),
        }
    }
    // The cause most others rest on first, then in report order.
    out.groups
        .sort_by_key(|(i, deps)| (std::cmp::Reverse(deps.len()), *i));
    out
}

impl Report {
    /// Its failed checks under their root causes ([`group_by_cause`]).
    pub fn causes(&self) -> Causes {
        let index: HashMap<&str, usize> = self
            .checks
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.as_str(), i))
            .collect();
        let c = &self.checks;
        group_by_cause(
            c.len(),
            |i| c[i].outcome == Outcome::Fail,
            |i| c[i].is_not_checkable(),
            |i| match &c[i].outcome {
                Outcome::NotCheckable { cause: Some(id) } => index.get(id.as_str()).copied(),
                _ => None,
            },
        )
    }
}
