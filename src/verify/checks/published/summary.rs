//! What the verdict line says of the publication, counted from its checks:
//! how many compared a published value with evidence, how many statements
//! of the prose were checked and how many were not, and, named, the
//! tables, rows, cells and statements not checked and the rows backed only
//! by files the publisher wrote for them. "every row, cell and statement
//! mapped to evidence" is said only when all of the rendered write-up's
//! tables, rows, cells and prose statements were checked against evidence
//! the run's chain names.

use crate::report::{Kind, Reason, Report};

/// The id prefix of the prose statements' checks.
const STATEMENT: &str = "statement:";

/// The publication's part of the verdict line (empty when no publication
/// was checked). A check that could not run because another failed is
/// counted apart, never as checked; and a verification with any failed
/// check never says "mapped to evidence".
pub fn verdict_part(report: &Report) -> String {
    let failed = report.checks().iter().any(|c| c.failed());
    let mut checked = 0;
    let mut not_checkable = 0;
    let mut tables = Vec::new();
    let mut unchecked = Vec::new();
    let mut publisher = Vec::new();
    let (mut statements, mut statements_checked) = (0, 0);
    let mut statements_unread = Vec::new();
    for c in report
        .checks()
        .iter()
        .filter(|c| c.kind() == Kind::Publication)
    {
        let rest = c.id.strip_prefix("publication:").unwrap_or(&c.id);
        let statement = rest.starts_with(STATEMENT);
        statements += usize::from(statement);
        // A statement bound only in part is not read, whoever bound it.
        let unread = c.reason() == Some(Reason::NotRead) || c.escalated() == Some(Reason::NotRead);
        if (c.source() == Some("publisher") && !unread)
            || c.reason() == Some(Reason::StatedByPublisher)
            || c.escalated() == Some(Reason::StatedByPublisher)
        {
            publisher.push(rest);
        } else if c.is_not_checkable() {
            not_checkable += 1;
        } else if c.ok().is_none() {
            // A table proofpack does not read is outside its definitions;
            // a statement no grammar reads is not read; a row or cell it
            // reads lacks evidence.
            match c.reason() {
                Some(Reason::NotDefined) => tables.push(rest),
                Some(Reason::NotRead) => statements_unread.push(rest),
                _ => unchecked.push(rest),
            }
        } else if statement && c.escalated() == Some(Reason::NotRead) {
            // A statement that failed only because no grammar reads it
            // (--require-all).
            statements_unread.push(rest);
        } else {
            checked += 1;
            statements_checked += usize::from(statement);
        }
    }
    if checked
        + not_checkable
        + tables.len()
        + unchecked.len()
        + publisher.len()
        + statements_unread.len()
        == 0
    {
        return String::new();
    }
    // Every statement is checked against evidence, bound by the publisher,
    // or not checked (not read, or not checkable): the three counts.
    let bound = publisher
        .iter()
        .filter(|r| r.starts_with(STATEMENT))
        .count();
    let left = statements.saturating_sub(statements_checked + bound);
    let mut out = format!(
        "; {checked} publication checks against evidence ({statements_checked} of {statements} statement(s) of the prose checked, {bound} bound by the publisher, {left} not checked)"
    );
    if not_checkable > 0 {
        out.push_str(&format!(
            "; {not_checkable} publication check(s) not checkable because a check they need failed"
        ));
    }
    if tables.is_empty()
        && unchecked.is_empty()
        && publisher.is_empty()
        && statements_unread.is_empty()
    {
        if !failed && not_checkable == 0 {
            out.push_str(", every row, cell and statement mapped to evidence");
        }
        return out;
    }
    if !statements_unread.is_empty() {
        out.push_str(&format!(
            "; {} statement(s) of the prose NOT CHECKED (no grammar reads them): {}",
            statements_unread.len(),
            statements_unread.join(", ")
        ));
    }
    if !tables.is_empty() {
        out.push_str(&format!(
            "; {} table(s) NOT CHECKED (not a table proofpack reads): {}",
            tables.len(),
            tables.join(", ")
        ));
    }
    if !unchecked.is_empty() {
        out.push_str(&format!(
            "; {} row(s) or cell(s) NOT CHECKED (no evidence in the run): {}",
            unchecked.len(),
            unchecked.join(", ")
        ));
    }
    if !publisher.is_empty() {
        out.push_str(&format!(
            "; {} row(s) backed only by files the publisher wrote for them: {}",
            publisher.len(),
            publisher.join(", ")
        ));
    }
    out.push_str(" (--require-all fails them)");
    out
}
