//! The human checklist of `verify`: every check under its area, the
//! publication's rows that were not checked, the verdict line, and the
//! recomputed table.

use proofpack::bundle::ENTRY_CHECK_PREFIX;
use proofpack::report::{Check, Kind};
use proofpack::verify::outcome::table;
use proofpack::verify::verification::Verification;

use super::args::TableFormat;
use crate::cli::{describe, Ui};

fn bold(ui: &Ui, s: &str) -> String {
    if ui.color_out {
        format!("\x1b[1m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

fn mark(ui: &Ui, c: &Check) -> String {
    match c.ok() {
        Some(true) => ui.green("PASS"),
        Some(false) => ui.red("FAIL"),
        None => ui.yellow("SKIP"),
    }
}

/// The root causes of a failed report first, each with the checks not
/// checkable because of it (the first few by id), before the checklist
/// that shows every check in its place.
fn print_causes(r: &proofpack::report::Report, ui: &Ui) {
    const NAMED: usize = 4;
    let causes = r.causes();
    let checks = r.checks();
    println!(
        "\n{}",
        bold(
            ui,
            &format!(
                "Why it failed: {} cause(s), each with what could not be checked because of it",
                causes.groups.len()
            )
        )
    );
    for (i, deps) in &causes.groups {
        let c = &checks[*i];
        println!("  {} {}  {}", mark(ui, c), c.id, describe(c));
        if deps.is_empty() {
            continue;
        }
        let direct = |d: &usize| matches!(&checks[*d].outcome, proofpack::report::Outcome::NotCheckable { cause: Some(x) } if *x == c.id);
        // Those it made not checkable directly come first, the ones most
        // others rest on before the rest.
        let children = |d: &usize| {
            let id = checks[*d].id.as_str();
            deps.iter()
                .filter(|e| matches!(&checks[**e].outcome, proofpack::report::Outcome::NotCheckable { cause: Some(x) } if x == id))
                .count()
        };
        let (mut first, rest): (Vec<&usize>, Vec<&usize>) = deps.iter().partition(|d| direct(d));
        first.sort_by_key(|d| std::cmp::Reverse(children(d)));
        let named: Vec<&str> = first
            .into_iter()
            .chain(rest)
            .take(NAMED)
            .map(|d| checks[*d].id.as_str())
            .collect();
        let more = deps.len().saturating_sub(NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        println!(
            "       {} not checkable because of it: {}{more}",
            deps.len(),
            named.join(", ")
        );
    }
    if !causes.unattributed.is_empty() {
        println!(
            "  {} check(s) not checkable for a reason they name: {}",
            causes.unattributed.len(),
            causes
                .unattributed
                .iter()
                .take(NAMED)
                .map(|d| checks[*d].id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Prints the checklist of `v` and, unless `table` is none, the recomputed
/// measured-points table.
pub fn print(v: &Verification, table_format: TableFormat, ui: &Ui) {
    let r = &v.report;
    println!("{}", bold(ui, &format!("proofpack verify {}", r.target())));
    if !r.ok() {
        print_causes(r, ui);
    }
    let mut current = String::new();
    let entries: Vec<&Check> = r
        .checks()
        .iter()
        .filter(|c| c.id.starts_with(ENTRY_CHECK_PREFIX))
        .collect();
    let bundle_entries_ok = entries.iter().all(|c| c.passed());
    let mut entries_summarised = false;
    for c in r.checks() {
        let a = c.area();
        if a != current {
            println!("\n{}", bold(ui, a));
            current = a.to_string();
        }
        // Hundreds of passing entry checks say nothing a summary does not.
        if c.id.starts_with(ENTRY_CHECK_PREFIX) && bundle_entries_ok && !ui.verbose {
            if !entries_summarised {
                println!(
                    "  {} {ENTRY_CHECK_PREFIX}*  all {} files match MANIFEST",
                    ui.green("PASS"),
                    entries.len()
                );
                entries_summarised = true;
            }
            continue;
        }
        let detail = if c.failed() {
            describe(c)
        } else {
            c.detail.clone()
        };
        println!("  {} {}  {}", mark(ui, c), c.id, detail);
    }
    println!();
    let unmapped: Vec<&Check> = r
        .checks()
        .iter()
        .filter(|c| c.kind() == Kind::Publication && (c.ok().is_none() || c.source().is_some()))
        .collect();
    if !unmapped.is_empty() {
        println!(
            "\n{}",
            bold(
                ui,
                "Published but not checked against evidence (--require-all fails them):"
            )
        );
        for c in unmapped {
            println!("  {} {}", c.id, c.detail);
        }
    }
    let line = r.verdict().unwrap_or_default();
    if r.ok() {
        println!("{}", ui.green(&bold(ui, line)));
    } else {
        println!("{}", ui.red(&bold(ui, line)));
    }
    if table_format != TableFormat::None && !v.rows.is_empty() {
        let q = v.qualification.as_ref();
        println!(
            "\nMeasured points of {} (recomputed from the client records{}):\n",
            q.map_or("the run", |q| q.name.as_str()),
            if r.ok() {
                ""
            } else {
                "; the verdict above is FAILED"
            }
        );
        match (table_format, q) {
            // The table `publish` writes, by the same renderer: pasted
            // under "Measured points", it is what `verify --publication`
            // reads back.
            (TableFormat::Markdown, Some(q)) => {
                match proofpack::adopt::publish::measured_markdown(q, &v.rows) {
                    Ok(lines) => println!("{}", lines.join("\n")),
                    Err(e) => println!("(no Markdown table: {e})"),
                }
            }
            _ => print!("{}", table::render_text(&v.rows)),
        }
    }
}
