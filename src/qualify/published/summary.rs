//! What the verdict line says of the publication, counted from its checks:
//! how many compared a published value with evidence, and, named, the
//! tables, rows and cells not checked and the rows backed only by files
//! the publisher wrote for them. "every row and cell mapped to evidence"
//! is said only when all of the rendered write-up's tables, rows and cells
//! were checked against evidence the run's chain names.

use crate::report::{Kind, Reason, Report};

/// The publication's part of the verdict line (empty when no publication
/// was checked).
pub fn verdict_part(report: &Report) -> String {
    let mut checked = 0;
    let mut tables = Vec::new();
    let mut unchecked = Vec::new();
    let mut publisher = Vec::new();
    for c in report
        .checks()
        .iter()
        .filter(|c| c.kind() == Kind::Publication)
    {
        let rest = c.id.strip_prefix("publication:").unwrap_or(&c.id);
        if c.source() == Some("publisher") {
            publisher.push(rest);
        } else if c.ok().is_none() {
            // A table proofpack does not read is outside its definitions;
            // a row or cell it reads lacks evidence.
            if c.reason() == Some(Reason::NotDefined) {
                tables.push(rest);
            } else {
                unchecked.push(rest);
            }
        } else {
            checked += 1;
        }
    }
    if checked + tables.len() + unchecked.len() + publisher.len() == 0 {
        return String::new();
    }
    let mut out = format!("; {checked} publication checks against evidence");
    if tables.is_empty() && unchecked.is_empty() && publisher.is_empty() {
        // The tables only: the prose around them is not read (yet), and
        // the verdict says so rather than cover more than it checked.
        out.push_str(
            ", every row and cell mapped to evidence; the prose around the tables is not checked",
        );
        return out;
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
