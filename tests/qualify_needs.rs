//! The dependency rule (contract section 8, "not checkable"): when the
//! evidence a check reads failed to read (a point's records malformed,
//! its records file off its MANIFEST digest, its journal past its id
//! limit), every check that reads it is not checkable, naming that cause,
//! never passed on what could be read. Each case edits the sample, seals
//! it and verifies it against the sample's own write-up.

mod qualify_support;

use std::path::Path;

use qualify_support::*;
use serde_json::Value;

const RECORDS: &str = "benchmark/rate-1/client.jsonl";
const JOURNAL: &str = "router-journal.jsonl";

/// The checks that read every record of the run: the engines' lifetimes,
/// the hosts' check times, the workload's record rows, the write-up's
/// statements about counts, warmups, terminal requests, coverage and
/// collector checks, and (through the hosts) the launch-check statement.
const EVERY_RECORD: &[&str] = &[
    "attestation:engine-0.launched_at",
    "attestation:engine-3.launched_at",
    "host:mi355x-node-01.qual.example.time",
    "host:mi355x-node-04.qual.example.time",
    "run.point_windows",
    "publication:pin:workload.records-input-tokens",
    "publication:pin:workload.records-output-tokens",
    "publication:statement:20.1",
    "publication:statement:26.1",
    "publication:statement:26.2",
    "publication:statement:26.3",
    "publication:statement:28.1",
    "publication:statement:28.2",
    "publication:statement:28.3",
    "publication:statement:28.4",
    "publication:point:1.ttft_s.p50",
    "point:rate-1.count",
    "point:rate-1.journal.timing",
];

fn verify_published(c: &Case, sealed: &Path) -> Outcome {
    c.verify_published(sealed)
}

/// Every id of `dependents` is not checkable; its cause is a check that
/// itself failed on its own (or, for a statement resting on a host check,
/// one not checkable under such a cause).
fn assert_not_checkable_under(o: &Outcome, cause: &str, dependents: &[&str]) {
    assert_eq!(o.code, 1, "{}", o.stdout);
    let root = o.check(cause);
    assert_eq!(root["ok"], false, "{root}");
    assert!(
        root.get("reason").is_none(),
        "the cause fails on its own: {root}"
    );
    for id in dependents {
        let c = o.check(id);
        assert_eq!(c["ok"], false, "{id}: {c}");
        assert_eq!(c["reason"], "not_checkable", "{id}: {c}");
        let named = c["cause"]
            .as_str()
            .unwrap_or_else(|| panic!("{id} names no cause: {c}"));
        if named != cause {
            // One step removed: its cause is not checkable under `cause`.
            assert_eq!(o.check(named)["cause"], cause, "{id}: {c}");
        }
    }
}

fn sealed_after(edit: impl FnOnce(&Case)) -> (Case, std::path::PathBuf) {
    let c = fresh();
    edit(&c);
    c.seal();
    let b = c.bundle_path();
    (c, b)
}

#[test]
fn a_blank_line_in_one_points_records_leaves_every_reader_of_records_not_checkable() {
    let (c, b) = sealed_after(|c| c.edit_lines(RECORDS, |l| l.insert(5, String::new())));
    let o = verify_published(&c, &b);
    assert_not_checkable_under(&o, "point:rate-1.records", EVERY_RECORD);
    // The other point's own checks still hold.
    assert_eq!(o.check("point:rate-0.5.count")["ok"], true);
}

#[test]
fn records_past_the_declared_count_leave_every_reader_not_checkable() {
    let (c, b) = sealed_after(|c| {
        c.edit_lines(RECORDS, |l| {
            let last = l.last().unwrap().clone();
            for k in 0..2 {
                l.push(last.replace("\"rate-1-", &format!("\"rate-1-x{k}")));
            }
        })
    });
    let o = verify_published(&c, &b);
    assert_not_checkable_under(&o, "point:rate-1.records", EVERY_RECORD);
}

#[test]
fn an_over_long_request_id_leaves_every_reader_not_checkable() {
    let (c, b) = sealed_after(|c| {
        c.edit_lines(RECORDS, |l| {
            l[3] = l[3].replacen("\"rate-1-", &format!("\"rate-1-{}", "x".repeat(300)), 1);
        })
    });
    let o = verify_published(&c, &b);
    assert_not_checkable_under(&o, "point:rate-1.records", EVERY_RECORD);
}

/// The sample sealed, then one digit of a send time in the records of
/// `rate-1` changed inside the bundle (MANIFEST unchanged): the record
/// still reads.
fn sealed_with_a_changed_record() -> (Case, std::path::PathBuf) {
    let c = fresh();
    c.seal();
    let b = c.bundle_path();
    let path = root_rel(RECORDS);
    rewrite_bundle(&b, |entries| {
        let (_, data) = entries.iter_mut().find(|(p, _)| *p == path).unwrap();
        let at = data.windows(9).position(|w| w == b"\"sent_at\"").unwrap() + 11;
        data[at] = if data[at] == b'9' { b'8' } else { b'9' };
    });
    (c, b)
}

#[test]
fn a_records_file_off_its_manifest_digest_leaves_every_reader_not_checkable() {
    let (c, b) = sealed_with_a_changed_record();
    let o = verify_published(&c, &b);
    let cause = format!("bundle.entry:{RECORDS}");
    let mut dependents = EVERY_RECORD.to_vec();
    dependents.push("point:rate-1.records");
    assert_not_checkable_under(&o, &cause, &dependents);
}

#[test]
fn a_journal_past_its_id_limit_leaves_the_statements_counting_it_not_checkable() {
    let (c, b) = sealed_after(|c| {
        c.edit_lines(JOURNAL, |l| {
            l.insert(
                3,
                format!(
                    "{{\"request_id\":\"rate-0.5-{}\",\"point\":\"rate-0.5\",\"event\":\"received\",\"at\":1790151540.5}}",
                    "y".repeat(300)
                ),
            );
        })
    });
    let o = verify_published(&c, &b);
    assert_not_checkable_under(
        &o,
        "point:rate-0.5.journal.terminal",
        &[
            "publication:statement:26.3",
            "publication:statement:28.1",
            "publication:statement:28.3",
            "point:rate-0.5.journal.timing",
        ],
    );
    // What reads the records alone still holds.
    let c = o.check("publication:statement:26.2");
    assert_eq!(c["ok"], true, "{c}");
    let v: &Value = &o.check("attestation:engine-0.launched_at")["ok"];
    assert_eq!(v, true);
}

/// A PAX global header before a point's records (section 5.1): the
/// archive is malformed there and reading stops; what the bundle holds
/// after it is not reached, and every check reading it is not checkable,
/// never passed on the part read.
#[test]
fn a_pax_global_header_stops_reading_and_leaves_the_rest_not_checkable() {
    use std::io::Read;
    let c = fresh();
    c.seal();
    let b = c.bundle_path();
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&b).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let records = root_rel(RECORDS);
    let mut entries = Vec::new();
    for e in tar::Archive::new(&raw[..]).entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_string_lossy().into_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        if path == records {
            let global = format!("{}/global", qualify_support::gen::NAME);
            entries.push((
                global,
                tar::EntryType::XGlobalHeader,
                b"11 path=ab\n".to_vec(),
            ));
        }
        entries.push((path, e.header().entry_type(), data));
    }
    write_tgz(&b, &entries);
    let o = verify_published(&c, &b);
    o.assert_fails("bundle.tar", "PAX global header ('g')");
    let entry = o.check(&format!("bundle.entry:{RECORDS}"));
    assert_eq!(entry["reason"], "not_checkable", "{entry}");
    for id in EVERY_RECORD {
        let k = o.check(id);
        assert!(
            k["ok"] == false && k["reason"] == "not_checkable",
            "{id} is not left not checkable: {k}"
        );
    }
}

/// One tampered record: the checklist, the verdict and the page name the
/// one root cause first (the changed bundle entry), each with what could
/// not be checked because of it, not a dozen equal failures.
#[test]
fn a_tampered_record_names_its_root_cause_first() {
    let (c, b) = sealed_with_a_changed_record();
    // Re-packed, as a publisher would, without the old digest file and
    // seal beside it.
    for side in [".sha256", ".seal.dsse.json"] {
        let _ = std::fs::remove_file(format!("{}{side}", b.display()));
    }
    let cause = format!("bundle.entry:{RECORDS}");
    let page = c.dir.path().join("report.html");
    let out = assert_cmd::Command::cargo_bin("proofpack")
        .unwrap()
        .args(["--no-catalog", "verify"])
        .arg(&b)
        .arg("--trust")
        .arg(c.trust())
        .arg("--html")
        .arg(&page)
        .args(["--table", "none"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let first_fail = text.lines().find(|l| l.contains("FAIL ")).unwrap();
    assert!(first_fail.contains(&cause), "{first_fail}\n{text}");
    let next = text
        .lines()
        .skip_while(|l| !l.contains("FAIL "))
        .nth(1)
        .unwrap();
    assert!(
        next.contains("not checkable because of it: point:rate-1.records"),
        "{next}"
    );
    let verdict = text
        .lines()
        .rev()
        .find(|l| l.starts_with("FAILED"))
        .unwrap();
    assert!(
        verdict.contains(&format!("(1 cause(s): {cause};")),
        "{verdict}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let failures = &html[html.find("id=\"failures\"").unwrap()..];
    let first_row = &failures[failures.find("data-check-id=\"").unwrap() + 15..];
    assert!(first_row.starts_with(&cause), "{}", &first_row[..200]);
}
