//! v1.1 (issue 23): past the first 4,096 requests of a point whose journal
//! events disagree with their client records, a request keeps only what
//! decides its checks, and the journal is read again for the lines and
//! times the checks quote. End to end through the binary, as a bundle and
//! as a run directory: the quoted failures name the journal's own lines.

mod qualify_support;

use std::collections::HashMap;

use qualify_support::*;
use serde_json::Value;

/// More requests than keep a full record (`journal::FULL_RECORDS`).
const N: u64 = 5000;
const CLIENT: &str = "benchmark/rate-1/client.jsonl";

/// Two terminal events get a status the client does not have.
const FORGED_STATUS: [&str; 2] = ["rate-1-000003", "rate-1-000007"];

/// One point of `N` requests whose journal is backwards: every request's
/// terminal event first, so the event after it is out of order (a failure
/// of every request), and the requests that keep a full record (the first
/// in the journal) are the last of the client's; and `FORGED_STATUS`.
fn every_request_disagrees() -> Case {
    let c = fresh_with(&gen::Params {
        requests: N,
        points: vec![("rate-1".into(), 1.0)],
        ..Default::default()
    });
    let forged_status = FORGED_STATUS;
    c.edit_lines(J, |l| {
        l.reverse();
        for line in l.iter_mut() {
            if forged_status
                .iter()
                .any(|id| line.contains(&format!("\"{id}\"")))
                && line.contains("\"terminal\"")
            {
                *line = line.replace("\"status\":\"ok\"", "\"status\":\"error\"");
            }
        }
    });
    c
}

#[test]
fn past_the_full_records_the_quoted_failures_name_the_journals_lines() {
    let c = every_request_disagrees();
    let forged_status = FORGED_STATUS;
    let journal = std::fs::read_to_string(c.path(J)).unwrap();
    // Per request id: the journal lines of its events, in file order.
    let mut lines: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, l) in journal.lines().enumerate() {
        let v: Value = serde_json::from_str(l).unwrap();
        lines
            .entry(v["request_id"].as_str().unwrap().to_string())
            .or_default()
            .push(i + 1);
    }
    let client: Vec<String> = std::fs::read_to_string(c.path(CLIENT))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["request_id"].as_str().unwrap().to_string()
        })
        .collect();

    let bundle = c.verify_sealed();
    let dir = verify(&c.run(), None, Some(&c.trust()));
    let timing = "point:rate-1.journal.timing";
    for o in [&bundle, &dir] {
        assert_eq!(o.code, 1, "{}", o.stdout);
        let detail = o.check(timing)["detail"].as_str().unwrap().to_string();
        assert!(
            detail.starts_with(&format!("{} request(s) whose times", N + 1)),
            "{detail}"
        );
        // The first ten requests of the client, each with the line of its
        // second event (earlier than the terminal event before it).
        for (k, rid) in client.iter().take(10).enumerate() {
            let want = format!(
                "request {rid:?} ({CLIENT}:{}; {J}): its events are not in time order (line {} is earlier",
                k + 1,
                lines[rid][1]
            );
            assert!(detail.contains(&want), "{want}\nnot in\n{detail}");
        }
        let status = o.check("point:rate-1.status")["detail"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(status.starts_with("2 status mismatch(es)"), "{status}");
        for rid in forged_status {
            let k = client.iter().position(|r| r == rid).unwrap();
            let want = format!(
                "request {rid:?}: client status ok ({CLIENT}:{}), terminal status error ({J}:{})",
                k + 1,
                lines[rid][0]
            );
            assert!(status.contains(&want), "{want}\nnot in\n{status}");
        }
    }
    // The bundle says what it read again, and why.
    let stable = bundle.check("bundle.stable")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        stable.contains(&format!(
            "read again in one more pass of the same verified bytes (same SHA-256, same structural verdict): {J} (for the lines and times its checks quote"
        )),
        "{stable}"
    );
    // The two readings give the same point checks.
    let points = |o: &Outcome| -> Vec<(Value, Value, Value)> {
        o.report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["id"].as_str().is_some_and(|id| id.starts_with("point:")))
            .map(|c| (c["id"].clone(), c["ok"].clone(), c["detail"].clone()))
            .collect()
    };
    assert_eq!(points(&bundle), points(&dir));
}

/// What is read again must be what was read: a journal whose bytes differ
/// the second time, or that is not read again, fails its checks instead of
/// quoting lines and times of other bytes (or none).
#[test]
fn a_journal_read_again_with_other_bytes_or_not_at_all_is_malformed() {
    use proofpack::verify::evidence::collector::{Collector, Plan, Reread};
    let c = every_request_disagrees();
    let q = proofpack::run::qualification::Qualification::parse(
        &std::fs::read(c.path("qualification.json")).unwrap(),
    )
    .unwrap();
    let plan = Plan::new(q, None, &[]);
    let journal = std::fs::read(c.path(J)).unwrap();
    let client = std::fs::read(c.path(CLIENT)).unwrap();
    let first_reading = || {
        let mut collector = Collector::new(&plan);
        collector.visit(CLIENT, &mut &client[..]).unwrap();
        collector.visit(J, &mut &journal[..]).unwrap();
        collector
    };
    // Read again with one byte changed: malformed, said so.
    let mut collector = first_reading();
    let deferred = collector.take_deferred();
    assert_eq!(deferred, vec![(J.to_string(), Reread::Details)]);
    let mut other = journal.clone();
    let at = other.len() - 3;
    other[at] = if other[at] == b'1' { b'2' } else { b'1' };
    collector
        .reread(J, Reread::Details, &mut &other[..])
        .unwrap();
    let out = collector.finish();
    let problems = &out.journals[J].problems;
    assert!(
        problems
            .quoted
            .iter()
            .any(|p| p == &format!("{J}: its bytes changed between its two readings; verify a copy that is not being written")),
        "{problems:?}"
    );
    // Not read again at all: malformed too.
    let out = first_reading().finish();
    let problems = &out.journals[J].problems;
    assert!(
        problems.quoted.iter().any(|p| p.starts_with(&format!(
            "{J}: could not be read again (it was not read again)"
        ))),
        "{problems:?}"
    );
    // Read again with the same bytes: nothing to say.
    let mut collector = first_reading();
    collector.take_deferred();
    collector
        .reread(J, Reread::Details, &mut &journal[..])
        .unwrap();
    assert!(collector.finish().journals[J].problems.is_empty());
}
