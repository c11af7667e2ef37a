//! The report's types: checks, their outcomes and reasons, the counts and
//! the report itself (re-exported by the module).

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use serde_json::Value;

use super::page::Page;

/// Schema tag of the JSON report.
pub const REPORT_SCHEMA: &str = "proofpack/report/v1";

/// How the detail of a check that could not run begins.
pub const NOT_CHECKABLE: &str = "not checkable: ";

/// Exit status: the evidence holds.
pub const EXIT_OK: i32 = 0;
/// Exit status: the evidence does not hold.
pub const EXIT_FAILED: i32 = 1;
/// Exit status: the tool could not do its job.
pub const EXIT_ERROR: i32 = 2;

/// Why a check was not checked (its outcome is neither pass nor fail, and
/// nothing failed because of it). A closed set: each reason says who could
/// change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The auditor did not ask for it (no `--pins`, `--structure-only`, no
    /// `--config-pin`, ...).
    NotAskedFor,
    /// The run or the file holds no evidence for it (no seal beside the
    /// bundle, no host reports listed, an archive that is not there).
    NoEvidence,
    /// The evidence is there but lacks what recomputing needs (a summary
    /// without its per-request arrays).
    CannotRecompute,
    /// Nothing was published or claimed to compare (a claim not made, a
    /// null field).
    NotClaimed,
    /// Outside the definitions proofpack follows (a result field no
    /// client definition covers, a mapping proofpack does not reproduce).
    NotDefined,
    /// The value rests only on what the publisher wrote for it.
    StatedByPublisher,
    /// A statement of the write-up's prose that no grammar of
    /// proofpack reads (contract section 9.6): what it says is not checked.
    NotRead,
}

impl Reason {
    /// Every reason, in a stable order.
    pub const ALL: [Reason; 7] = [
        Reason::NotAskedFor,
        Reason::NoEvidence,
        Reason::CannotRecompute,
        Reason::NotClaimed,
        Reason::NotDefined,
        Reason::StatedByPublisher,
        Reason::NotRead,
    ];

    /// The name written into the JSON report (`"reason"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NotAskedFor => "not_asked_for",
            Reason::NoEvidence => "no_evidence",
            Reason::CannotRecompute => "cannot_recompute",
            Reason::NotClaimed => "not_claimed",
            Reason::NotDefined => "not_defined",
            Reason::StatedByPublisher => "stated_by_publisher",
            Reason::NotRead => "not_read",
        }
    }

    /// The reason named `s` in a JSON report.
    pub fn parse(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// The name written into the JSON report for a check that could not run
/// because another failed (`"reason"`).
pub const REASON_NOT_CHECKABLE: &str = "not_checkable";

/// What became of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The evidence holds.
    Pass,
    /// The evidence does not hold: a cause of a failed verdict.
    Fail,
    /// The check could not run because something it needs failed; it fails
    /// the verdict but is not a cause of its own. `cause` is the id of the
    /// failed check it depends on, where one check is the cause.
    NotCheckable {
        /// The id of the cause, where known.
        cause: Option<String>,
    },
    /// Not checked, for the reason given; the verdict does not depend on it.
    NotChecked(Reason),
}

impl Outcome {
    /// `Some(true)` passed, `Some(false)` failed or not checkable, `None`
    /// not checked: the report's `ok` field.
    pub fn ok(&self) -> Option<bool> {
        match self {
            Outcome::Pass => Some(true),
            Outcome::Fail | Outcome::NotCheckable { .. } => Some(false),
            Outcome::NotChecked(_) => None,
        }
    }
}

/// What a check is about, for the verdict's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Kind {
    /// A property of the evidence itself.
    #[default]
    Evidence,
    /// A published claim compared with a value recomputed from the evidence.
    Claim,
    /// A row, cell or statement of the published write-up.
    Publication,
}

/// A mark the code that makes a check sets on it so that what reads the
/// report later (the verdict's qualifiers, a sentence of the prose, a
/// command's summary line) finds it by type, never by the spelling of its
/// id. Not serialised: the JSON report carries the id, outcome and reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    /// A binding of a host launch check to this run, its qualified fleet,
    /// its time or its weights record (`host:<h>.run`, `.fleet`, `.time`,
    /// `.totals`, `.shards`, `hosts.qualified_fleet`,
    /// `hosts.weights_record`).
    HostBinding,
    /// The benchmark plan's bound on every record's token counts
    /// (`plan.lengths`).
    TokenBound,
    /// A host's config digest, stated in its report, not hashed from a file
    /// on the host (`host:<h>.config`).
    StatedConfig,
}

/// One check of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Stable, namespaced id (`bundle.sha256`, `pin:<name>`, ...).
    pub id: String,
    /// What became of it.
    pub outcome: Outcome,
    /// What was checked, or why it failed or was not checked.
    pub detail: String,
    /// The expected value, where one exists.
    pub expected: Option<Value>,
    /// The actual value, where one exists.
    pub actual: Option<Value>,
    /// Set when the check compares a published value only with a file the
    /// publisher named for it (a fact), not with evidence the run's chain
    /// names: `{"fact", "file", "pointer"}`; serialised as `"source":
    /// "publisher"` and `"stated_in"`.
    stated_in: Option<Box<Value>>,
    /// The statement of the write-up's prose this check is about:
    /// `{"line", "text"}`, serialised as `"source"` (a check backed by the
    /// publisher's file keeps `"source": "publisher"` and adds the
    /// statement as `"statement"`).
    statement: Option<Box<Value>>,
    /// The group it is shown under, when its code names one (see
    /// [`Report::enter`]).
    area: Option<String>,
    /// What it is about.
    kind: Kind,
    /// What later readers of the report find it by, when set.
    mark: Option<Mark>,
    /// What it becomes in a report that requires every check
    /// ([`Strictness::RequireAll`]), when that differs.
    strict: Option<Box<Strict>>,
    /// The reason it was not checked (or held only by the publisher's
    /// word) before [`Strictness::RequireAll`] failed it.
    escalated: Option<Reason>,
    /// The checks it cannot be checked without: ids, or id prefixes
    /// ending in `*` ([`Report::settle_needs`]).
    needs: Vec<String>,
}

/// What a report requires of the checks that cannot show what they check
/// (no evidence, no grammar, only the publisher's word): set once by the
/// auditor's policy (`--require-all`) on the report, applied by
/// [`Report::push`] to every check that says what it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strictness {
    /// Such a check stays not checked (or passed, labelled as the
    /// publisher's).
    #[default]
    Lenient,
    /// Such a check fails (or is not checkable under the one that fails).
    RequireAll,
}

/// What a check becomes under [`Strictness::RequireAll`].
#[derive(Debug, Clone, PartialEq)]
struct Strict {
    detail: String,
    cause: Option<String>,
}

impl Check {
    fn new(id: impl Into<String>, outcome: Outcome, detail: impl Into<String>) -> Self {
        Check {
            id: id.into(),
            outcome,
            detail: detail.into(),
            expected: None,
            actual: None,
            stated_in: None,
            statement: None,
            area: None,
            kind: Kind::Evidence,
            mark: None,
            strict: None,
            escalated: None,
            needs: Vec::new(),
        }
    }
    /// A passed check.
    pub fn pass(id: impl Into<String>, detail: impl Into<String>) -> Self {
        Check::new(id, Outcome::Pass, detail)
    }
    /// A failed check.
    pub fn fail(id: impl Into<String>, detail: impl Into<String>) -> Self {
        Check::new(id, Outcome::Fail, detail)
    }
    /// A check that could not run because something it needs failed (the
    /// detail says what; it is shown after "not checkable: ").
    pub fn not_checkable(id: impl Into<String>, why: impl AsRef<str>) -> Self {
        Check::new(
            id,
            Outcome::NotCheckable { cause: None },
            format!("{NOT_CHECKABLE}{}", why.as_ref()),
        )
    }
    /// A check that could not run because the check `cause` failed.
    pub fn not_checkable_by(
        id: impl Into<String>,
        cause: impl Into<String>,
        why: impl AsRef<str>,
    ) -> Self {
        let mut c = Check::not_checkable(id, why);
        c.outcome = Outcome::NotCheckable {
            cause: Some(cause.into()),
        };
        c
    }
    /// A check that was not checked, for `reason`.
    pub fn not_checked(id: impl Into<String>, reason: Reason, detail: impl Into<String>) -> Self {
        Check::new(id, Outcome::NotChecked(reason), detail)
    }
    /// A check the evidence cannot show (an older run's missing binding):
    /// not checked for want of evidence, or, in a report that requires
    /// every check, failed with the same detail and "(--require-all)".
    pub fn unshown(id: impl Into<String>, why: impl AsRef<str>) -> Self {
        let why = why.as_ref();
        let id = id.into();
        Check::not_checked(id, Reason::NoEvidence, why).or_fail(format!("{why} (--require-all)"))
    }
    /// The same check, which fails with `detail` in a report that requires
    /// every check ([`Strictness::RequireAll`]).
    pub fn or_fail(mut self, detail: impl Into<String>) -> Self {
        self.strict = Some(Box::new(Strict {
            detail: detail.into(),
            cause: None,
        }));
        self
    }
    /// The same check, which is not checkable because `cause` failed, with
    /// `detail`, in a report that requires every check.
    pub fn or_not_checkable_by(
        mut self,
        cause: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        self.strict = Some(Box::new(Strict {
            detail: detail.into(),
            cause: Some(cause.into()),
        }));
        self
    }
    /// Why it was not checked (or held only by the publisher's word) before
    /// a report that requires every check failed it.
    pub fn escalated(&self) -> Option<Reason> {
        self.escalated
    }
    /// What it becomes under `strictness`: a check that says what it
    /// becomes where every check is required becomes that (a lenient
    /// report keeps what it would become, for a report that takes its
    /// checks and requires them all), its reason
    /// kept as [`Check::escalated`] and its mark dropped (a failure is
    /// found by failing).
    fn under(mut self, strictness: Strictness) -> Self {
        if strictness == Strictness::Lenient {
            return self;
        }
        let Some(strict) = self.strict.take() else {
            return self;
        };
        self.escalated = Some(match self.outcome {
            Outcome::NotChecked(r) => r,
            _ => Reason::StatedByPublisher,
        });
        self.outcome = match strict.cause {
            None => Outcome::Fail,
            Some(cause) => Outcome::NotCheckable { cause: Some(cause) },
        };
        self.detail = strict.detail;
        self.mark = None;
        self
    }
    /// A check that was not asked for.
    pub fn skip(id: impl Into<String>, reason: impl Into<String>) -> Self {
        Check::not_checked(id, Reason::NotAskedFor, reason)
    }
    /// A passed or failed check depending on `ok`.
    pub fn outcome(id: impl Into<String>, ok: bool, detail: impl Into<String>) -> Self {
        if ok {
            Check::pass(id, detail)
        } else {
            Check::fail(id, detail)
        }
    }
    /// Attaches expected and actual values.
    pub fn with_values(mut self, expected: impl Into<Value>, actual: impl Into<Value>) -> Self {
        self.expected = Some(expected.into());
        self.actual = Some(actual.into());
        self
    }
    /// Marks the check as backed only by a file the publisher named for it:
    /// `fact` of `qualification.json`, read from `file` at `pointer`.
    pub fn stated_by_publisher(mut self, fact: &str, file: &str, pointer: Option<&str>) -> Self {
        self.stated_in = Some(Box::new(
            serde_json::json!({"fact": fact, "file": file, "pointer": pointer}),
        ));
        self
    }
    /// The same check, about the statement at `line` of the write-up whose
    /// rendered text is `text`.
    pub fn about_statement(mut self, line: usize, text: &str) -> Self {
        self.statement = Some(Box::new(serde_json::json!({"line": line, "text": text})));
        self
    }
    /// The statement of the prose the check is about (`{"line", "text"}`).
    pub fn statement(&self) -> Option<&Value> {
        self.statement.as_deref()
    }
    /// `Some("publisher")` for a check backed only by the publisher's file.
    pub fn source(&self) -> Option<&'static str> {
        self.stated_in.as_ref().map(|_| "publisher")
    }
    /// The fact a publisher-backed check read (`{"fact", "file", "pointer"}`).
    pub fn stated_in(&self) -> Option<&Value> {
        self.stated_in.as_deref()
    }
    /// The same check, shown under `area`.
    pub fn in_area(mut self, area: impl Into<String>) -> Self {
        self.area = Some(area.into());
        self
    }
    /// The same check, marked `mark` for what reads the report later.
    pub fn marked(mut self, mark: Mark) -> Self {
        self.mark = Some(mark);
        self
    }
    /// Its mark, if one was set.
    pub fn mark(&self) -> Option<Mark> {
        self.mark
    }
    /// The same check, counted as a published claim.
    pub fn claim(mut self) -> Self {
        self.kind = Kind::Claim;
        self
    }
    /// The same check, counted as a row, cell or statement of the write-up.
    pub fn publication(mut self) -> Self {
        self.kind = Kind::Publication;
        self
    }
    /// `Some(true)` passed, `Some(false)` failed or not checkable, `None`
    /// not checked.
    pub fn ok(&self) -> Option<bool> {
        self.outcome.ok()
    }
    /// True if the check failed (on its own evidence, or because what it
    /// needs failed).
    pub fn failed(&self) -> bool {
        self.ok() == Some(false)
    }
    /// True if the check passed.
    pub fn passed(&self) -> bool {
        self.outcome == Outcome::Pass
    }
    /// True if the check could not run because another failed.
    pub fn is_not_checkable(&self) -> bool {
        matches!(self.outcome, Outcome::NotCheckable { .. })
    }
    /// What the check is about.
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The group it is shown under.
    pub fn area(&self) -> &str {
        match &self.area {
            Some(a) => a,
            None => default_area(&self.id),
        }
    }
    /// The reason it was not checked, if it was not.
    pub fn reason(&self) -> Option<Reason> {
        match self.outcome {
            Outcome::NotChecked(r) => Some(r),
            _ => None,
        }
    }
}

/// The area of a check whose code names none: the head of its id.
fn default_area(id: &str) -> &str {
    id.split([':', '.']).next().unwrap_or(id)
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let reason = match &self.outcome {
            Outcome::NotCheckable { .. } => Some(REASON_NOT_CHECKABLE),
            Outcome::NotChecked(r) => Some(r.as_str()),
            _ => None,
        };
        let cause = match &self.outcome {
            Outcome::NotCheckable { cause } => cause.as_deref(),
            _ => None,
        };
        let n = 4
            + usize::from(self.expected.is_some())
            + usize::from(self.actual.is_some())
            + 2 * usize::from(self.stated_in.is_some())
            + usize::from(self.statement.is_some())
            + usize::from(reason.is_some())
            + usize::from(cause.is_some());
        let mut st = s.serialize_struct("Check", n)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("ok", &self.ok())?;
        st.serialize_field("detail", &self.detail)?;
        if let Some(e) = &self.expected {
            st.serialize_field("expected", e)?;
        }
        if let Some(a) = &self.actual {
            st.serialize_field("actual", a)?;
        }
        if let Some(s) = &self.stated_in {
            st.serialize_field("source", "publisher")?;
            st.serialize_field("stated_in", s)?;
            if let Some(t) = &self.statement {
                st.serialize_field("statement", t)?;
            }
        } else if let Some(t) = &self.statement {
            st.serialize_field("source", t)?;
        }
        st.serialize_field("area", self.area())?;
        if let Some(r) = reason {
            st.serialize_field("reason", r)?;
        }
        if let Some(c) = cause {
            st.serialize_field("cause", c)?;
        }
        st.end()
    }
}

/// Counts of checks by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed (causes and not checkable ones).
    pub failed: usize,
    /// Checks that were not checked.
    pub skipped: usize,
    /// Failed checks that could not run because another failed
    /// ("not checkable: ..."); counted in `failed` too. `failed -
    /// not_checkable` is the number of causes.
    pub not_checkable: usize,
}

impl Summary {
    /// Failed checks that are causes, not echoes of another failure.
    pub fn causes(&self) -> usize {
        self.failed - self.not_checkable
    }

    /// The counts of `checks`.
    pub fn of<'a>(checks: impl IntoIterator<Item = &'a Check>) -> Summary {
        let mut s = Summary::default();
        for c in checks {
            match &c.outcome {
                Outcome::Pass => s.passed += 1,
                Outcome::Fail => s.failed += 1,
                Outcome::NotCheckable { .. } => {
                    s.failed += 1;
                    s.not_checkable += 1;
                }
                Outcome::NotChecked(_) => s.skipped += 1,
            }
        }
        s
    }
}

/// A verification report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    target: String,
    checks: Vec<Check>,
    /// The area checks without one of their own are pushed into.
    area: Option<String>,
    /// What it requires of checks that cannot show what they check.
    strictness: Strictness,
    verdict: Option<String>,
    page: Page,
}

impl Report {
    /// An empty report about `target`.
    pub fn new(target: impl Into<String>) -> Self {
        Report {
            target: target.into(),
            checks: Vec::new(),
            area: None,
            strictness: Strictness::Lenient,
            verdict: None,
            page: Page::default(),
        }
    }

    /// The same report, requiring of its checks what `strictness` says:
    /// every check pushed from now on is judged under it.
    pub fn requiring(mut self, strictness: Strictness) -> Self {
        self.strictness = strictness;
        self
    }

    /// What it requires of checks that cannot show what they check.
    pub fn strictness(&self) -> Strictness {
        self.strictness
    }

    /// What was verified.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Every check, in the order it ran.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// The checks, taken out of the report.
    pub fn into_checks(self) -> Vec<Check> {
        self.checks
    }

    /// True when no check failed.
    pub fn ok(&self) -> bool {
        !self.checks.iter().any(Check::failed)
    }

    /// Counts by outcome.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.checks)
    }

    /// Checks pushed from now on without an area of their own are shown
    /// under `area` (`None`: under the head of their id).
    pub fn enter(&mut self, area: Option<&str>) {
        self.area = area.map(str::to_string);
    }

    /// Appends a check.
    pub fn push(&mut self, check: Check) {
        let mut check = check.under(self.strictness);
        if check.area.is_none() {
            check.area = self.area.clone();
        }
        self.checks.push(check);
    }

    /// Appends every check of another report (its target is dropped).
    pub fn extend(&mut self, other: Report) {
        for c in other.checks {
            self.push(c);
        }
    }

    /// Replaces the check with id `id` by `check`, in its place; appends it
    /// when there is none.
    pub fn replace(&mut self, id: &str, check: Check) {
        match self.checks.iter().position(|c| c.id == id) {
            Some(i) => {
                let area = self.checks[i].area.clone();
                let mut check = check;
                if check.area.is_none() {
                    check.area = area;
                }
                self.checks[i] = check;
            }
            None => self.push(check),
        }
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.failed())
    }

    /// Looks a check up by id.
    pub fn get(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Exit status for this report: 0 when it holds, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.ok() {
            EXIT_OK
        } else {
            EXIT_FAILED
        }
    }

    /// The verdict line, where the verb states one.
    pub fn verdict(&self) -> Option<&str> {
        self.verdict.as_deref()
    }

    /// Sets the verdict line.
    pub fn set_verdict(&mut self, line: impl Into<String>) {
        self.verdict = Some(line.into());
    }

    /// What the HTML page needs besides the checks.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Sets the page data: context (tool, time, digests, seal, trust,
    /// publication), the recomputed measured-points table, the published
    /// inputs with the outcomes of their checks, and the latency series.
    pub fn set_page(&mut self, page: Page) {
        self.page = page;
    }

    /// The report as one JSON object (spec section 7).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = 5
            + usize::from(self.verdict.is_some())
            + usize::from(self.page.context.is_some())
            + usize::from(self.page.table.is_some())
            + usize::from(self.page.published.is_some())
            + usize::from(self.page.plots.is_some());
        let mut st = s.serialize_struct("Report", n)?;
        st.serialize_field("schema", REPORT_SCHEMA)?;
        st.serialize_field("ok", &self.ok())?;
        st.serialize_field("target", &self.target)?;
        st.serialize_field("checks", &self.checks)?;
        st.serialize_field("summary", &self.summary())?;
        if let Some(v) = &self.verdict {
            st.serialize_field("verdict", v)?;
        }
        if let Some(v) = &self.page.context {
            st.serialize_field("context", v)?;
        }
        if let Some(v) = &self.page.table {
            st.serialize_field("table", v)?;
        }
        if let Some(v) = &self.page.published {
            st.serialize_field("published", v)?;
        }
        if let Some(v) = &self.page.plots {
            st.serialize_field("plots", v)?;
        }
        st.end()
    }
}

pub mod needs;

#[cfg(test)]
mod tests;
