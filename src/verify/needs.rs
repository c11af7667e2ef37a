//! What each check needs (contract section 8, "not checkable"): the one
//! table of dependencies between the checks of a verification, by id,
//! applied by [`Report::settle_needs`] once every check is in. A check
//! whose evidence failed to read (a point's records, its journal, the
//! bundle entry of either) leaves every check that reads that evidence
//! not checkable under it, whatever that check found on its own.
//!
//! Statements of the prose and measured-points cells name their needs
//! where they are checked (by the form that reads them, by the point their
//! row is), since their ids are lines and rates of the write-up; the rest
//! are named here by the id families the contract lists.

use crate::report::{Check, Report};
use crate::run::qualification::{Point, Qualification};

/// The checks that must hold for point `p`'s records to be read: the
/// bundle entry of the file they are read from (the records file, or for
/// a derived point the result file they derive from), and their reading
/// (`point:<p>.records`, not checkable under `.source` where the result
/// file derives to no records). A derived point's records file is a copy
/// (`.derived` compares it) and its result file's own summary is checked
/// apart (`.source`): neither is what the records are read from.
pub fn records_of(p: &Point) -> Vec<String> {
    let file = p.source.as_ref().map_or(&p.client_records, |s| &s.file);
    vec![entry(file), format!("point:{}.records", p.name)]
}

/// The checks that must hold for point `p`'s journal file to be read:
/// the bundle entries of the journal and of the router log it derives
/// from, and that derivation.
fn journal_file_of(p: &Point) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(j) = &p.journal {
        out.push(entry(j));
    }
    if let Some(s) = &p.journal_source {
        out.push(entry(&s.file));
        out.push(format!("point:{}.journal_source", p.name));
    }
    out
}

/// What a statement counting point `p`'s journal events needs: its file
/// ([`journal_file_of`]) and `journal.terminal`, which fails on a
/// malformed journal and on one whose terminal events are not the
/// records' (the statement's count rests on both).
pub fn journal_of(p: &Point) -> Vec<String> {
    let mut out = journal_file_of(p);
    out.push(format!("point:{}.journal.terminal", p.name));
    out
}

/// [`records_of`] every point of the run.
pub fn all_records(q: &Qualification) -> Vec<String> {
    q.points.iter().flat_map(records_of).collect()
}

/// [`journal_of`] every point of the run.
pub fn all_journals(q: &Qualification) -> Vec<String> {
    q.points.iter().flat_map(journal_of).collect()
}

fn entry(path: &str) -> String {
    crate::bundle::entry_check_id(path)
}

/// What the check `id` needs, by its family.
fn needs_of(id: &str, q: &Qualification) -> Vec<String> {
    // Checks that read every record of the run.
    let every_record = (id.starts_with("attestation:") && id.ends_with(".launched_at"))
        || (id.starts_with("host:") && id.ends_with(".time"))
        || id == "run.point_windows"
        || id.starts_with("publication:pin:workload.records-");
    if every_record {
        return all_records(q);
    }
    for p in &q.points {
        let Some(rest) = id
            .strip_prefix("point:")
            .and_then(|r| r.strip_prefix(p.name.as_str()))
            .and_then(|r| r.strip_prefix('.'))
        else {
            continue;
        };
        return match rest {
            // What reads the evidence, and the bundle's own claims.
            "records" => records_of(p)
                .into_iter()
                .filter(|n| !n.ends_with(".records"))
                .collect(),
            "source" | "derived" => p
                .source
                .as_ref()
                .map(|s| vec![entry(&s.file)])
                .unwrap_or_default(),
            "claims" | "journal_source" => Vec::new(),
            // The point's own journal checks judge the journal against the
            // records, request id by request id (so not where two records
            // share one), and say themselves when it is malformed.
            r if r.starts_with("journal.") || r == "status" => {
                let mut n = records_of(p);
                n.push(format!("point:{}.unique_ids", p.name));
                n.extend(journal_file_of(p));
                n
            }
            _ => records_of(p),
        };
    }
    Vec::new()
}

/// Names what every check of `report` needs and settles the report: a
/// check that needs one that failed is not checkable under it.
pub fn settle(report: &mut Report, q: &Qualification) {
    report.add_needs(|c: &Check| needs_of(&c.id, q));
    report.settle_needs();
}
