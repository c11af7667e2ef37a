//! v1.1 (issue 23): a router journal is judged while it streams when its
//! points' client records come first in the bundle; one that comes first is
//! read again, in one more pass over the bundle, once the records are in
//! (its events are then judged the same way instead of kept per request id).
//! The two readings give the same checks, word for word, on an honest
//! journal and on a forged one, end to end through the binary; a bundle
//! whose bytes change before that pass is not trusted.

mod qualify_support;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use proofpack::bundle::Limits;
use proofpack::progress::Progress;
use proofpack::report::Outcome as Verdict;
use proofpack::verify::checks::options::Options;
use proofpack::verify::source::bundle::verify_bundle_file;
use proofpack::verify::source::bundle::SealRequest;
use qualify_support::*;
use serde_json::Value;

/// Sorts before `attestations/` and `benchmark/`: read before every
/// client-records file.
const J_FIRST: &str = "0-router-journal.jsonl";

/// Renames the journal so that the bundle holds it before the records.
fn journal_first(c: &Case) {
    std::fs::rename(c.path(J), c.path(J_FIRST)).unwrap();
    c.edit_json("qualification.json", |q| {
        for p in q["points"].as_array_mut().unwrap() {
            p["journal"] = J_FIRST.into();
        }
        q["roles"]["router journal"] = serde_json::json!([J_FIRST]);
    });
}

/// The point checks of a report, with the journal's name as in `J`.
fn point_checks(o: &Outcome) -> Vec<(String, Value, String)> {
    o.report["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a report:\n{}", o.stdout))
        .iter()
        .filter(|c| c["id"].as_str().is_some_and(|id| id.starts_with("point:")))
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["ok"].clone(),
                c["detail"].as_str().unwrap_or("").replace(J_FIRST, J),
            )
        })
        .collect()
}

/// Forges the journal (`rel`): a first_token event 5 s late, an arrival
/// 10 s before the send, a second terminal event, a terminal status the
/// client does not have, a missing terminal event, an event after the
/// terminal one, and a request no client sent.
fn forge(c: &Case, rel: &str) {
    c.edit_lines(rel, |l| {
        let find = |l: &Vec<String>, id: &str, event: &str| {
            l.iter()
                .position(|x| {
                    x.contains(&format!("\"{id}\"")) && x.contains(&format!("\"{event}\""))
                })
                .unwrap_or_else(|| panic!("{id} {event}"))
        };
        let shift = |line: &str, by: f64| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            v["at"] = (v["at"].as_f64().unwrap() + by).into();
            v.to_string()
        };
        let i = find(l, "rate-1-000003", "first_token");
        l[i] = shift(&l[i], 5.0);
        let i = find(l, "rate-1-000007", "received");
        l[i] = shift(&l[i], -10.0);
        let i = find(l, "rate-0.5-000042", "terminal");
        let dup = l[i].clone();
        l.insert(i + 1, dup);
        let i = find(l, "rate-0.5-000005", "terminal");
        l[i] = l[i].replace("\"status\":\"ok\"", "\"status\":\"error\"");
        let i = find(l, "rate-0.5-000010", "terminal");
        l.remove(i);
        let i = find(l, "rate-1-000020", "terminal");
        let mut after: Value = serde_json::from_str(&l[i]).unwrap();
        after["event"] = "routed".into();
        after.as_object_mut().unwrap().remove("status");
        l.insert(i + 1, after.to_string());
        let mut orphan: Value = serde_json::from_str(&l[i]).unwrap();
        orphan["request_id"] = "rate-1-999999".into();
        l.insert(i + 2, orphan.to_string());
    });
}

#[test]
fn an_honest_journal_reads_the_same_in_either_order() {
    let judged = fresh();
    let a = judged.verify_sealed();
    assert_eq!(a.code, 0, "{}", a.stdout);
    let kept = fresh();
    journal_first(&kept);
    let b = kept.verify_sealed();
    assert_eq!(b.code, 0, "{}", b.stdout);
    assert_eq!(point_checks(&a), point_checks(&b));
    // What was read again, and why, is said; a journal after its records
    // is read once.
    let stable = |o: &Outcome| {
        o.check("bundle.stable")["detail"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        stable(&b).contains(&format!("read again in one more pass of the same verified bytes (same SHA-256, same structural verdict): {J_FIRST} (it comes before the client records it is judged against)")),
        "{}",
        stable(&b)
    );
    assert!(!stable(&a).contains("one more pass"), "{}", stable(&a));
    // The run directory is read records first, journal last.
    let dir = verify(&kept.run(), None, Some(&kept.trust()));
    assert_eq!(point_checks(&dir), point_checks(&b));
}

#[test]
fn a_forged_journal_fails_the_same_checks_in_either_order() {
    let judged = fresh();
    forge(&judged, J);
    let a = judged.verify_sealed();
    let kept = fresh();
    journal_first(&kept);
    forge(&kept, J_FIRST);
    let b = kept.verify_sealed();
    assert_eq!(a.code, 1, "{}", a.stdout);
    assert_eq!(b.code, 1, "{}", b.stdout);
    assert_eq!(point_checks(&a), point_checks(&b));
    for o in [&a, &b] {
        o.assert_fails("point:rate-1.journal.timing", "rate-1-000003");
        o.assert_fails("point:rate-1.journal.timing", "rate-1-000007");
        o.assert_fails("point:rate-1.journal.timing", "rate-1-000020");
        o.assert_fails("point:rate-1.journal.orphans", "rate-1-999999");
        o.assert_fails("point:rate-0.5.journal.terminal", "rate-0.5-000042");
        o.assert_fails("point:rate-0.5.journal.terminal", "rate-0.5-000010");
        o.assert_fails("point:rate-0.5.status", "rate-0.5-000005");
    }
}

/// Writes other bytes of the same size over the bundle when the first pass
/// ends, and gives it back its modification time: the file looks untouched.
struct SwapAtEnd {
    path: PathBuf,
    bytes: Vec<u8>,
    mtime: SystemTime,
    done: Mutex<bool>,
}

impl Progress for SwapAtEnd {
    fn finish(&self) {
        let mut done = self.done.lock().unwrap();
        if !*done {
            std::fs::write(&self.path, &self.bytes).unwrap();
            let f = std::fs::File::options()
                .write(true)
                .open(&self.path)
                .unwrap();
            f.set_modified(self.mtime).unwrap();
            *done = true;
        }
    }
}

#[test]
fn a_bundle_that_changes_before_its_journal_is_read_again_is_not_trusted() {
    let c = fresh();
    journal_first(&c);
    c.seal();
    let bundle = c.bundle_path();
    let honest = std::fs::read(&bundle).unwrap();
    // A forged journal whose bundle has the honest one's size: one digit of
    // one event time changed, tried event by event until the sizes agree.
    let journal = std::fs::read_to_string(c.path(J_FIRST)).unwrap();
    let forged = (1..200)
        .find_map(|k| {
            let at = journal.match_indices("\"at\":").nth(k)?.0 + 5;
            let end = at + journal[at..].find([',', '}']).unwrap();
            let digit = journal[..end]
                .rfind(|ch: char| ch.is_ascii_digit())
                .unwrap();
            let d = journal.as_bytes()[digit] - b'0';
            let mut text = journal.clone().into_bytes();
            text[digit] = b'0' + (d + 1) % 10;
            std::fs::write(c.path(J_FIRST), &text).unwrap();
            c.seal();
            let b = std::fs::read(&bundle).unwrap();
            (b.len() == honest.len()).then_some(b)
        })
        .expect("a same-size forgery among 200");
    assert_ne!(forged, honest);
    std::fs::write(&bundle, &honest).unwrap();
    let swap = SwapAtEnd {
        path: bundle.clone(),
        bytes: forged,
        mtime: std::fs::metadata(&bundle).unwrap().modified().unwrap(),
        done: Mutex::new(false),
    };
    let opts = Options {
        pins: None,
        attestations: None,
        publication: None,
        strictness: Default::default(),
        deriver: None,
    };
    let v = verify_bundle_file(
        &bundle,
        &Limits::default(),
        &SealRequest::default(),
        &opts,
        &swap,
    )
    .unwrap();
    assert!(*swap.done.lock().unwrap(), "the first pass ended");
    let stable = v.report.get("bundle.stable").expect("bundle.stable");
    assert_eq!(stable.outcome, Verdict::Fail, "{}", stable.detail);
    assert!(
        stable.detail.contains(&format!(
            "the bundle changed before a journal was read again ({J_FIRST} (it comes before"
        )),
        "{}",
        stable.detail
    );
    // No check of the points' evidence is reported as holding: each is not
    // checkable because of bundle.stable.
    let points: Vec<_> = v
        .report
        .checks()
        .iter()
        .filter(|c| c.id.starts_with("point:"))
        .collect();
    assert!(!points.is_empty());
    for c in points {
        assert_eq!(
            c.outcome,
            Verdict::NotCheckable {
                cause: Some("bundle.stable".into())
            },
            "{c:?}"
        );
    }
}

#[test]
fn a_v1_order_bundle_reads_a_journal_that_comes_first_again_with_the_same_checks() {
    let one = fresh();
    journal_first(&one);
    forge(&one, J_FIRST);
    let a = one.verify_sealed();
    let v1 = fresh();
    journal_first(&v1);
    forge(&v1, J_FIRST);
    v1.seal();
    let bundle = v1.bundle_path();
    rewrite_bundle(&bundle, |entries| {
        assert!(entries[0].0.ends_with("/MANIFEST"));
        // The v1 order: MANIFEST, then every other file in path order.
        entries[1..].sort_by(|x, y| x.0.cmp(&y.0));
    });
    for side in [".sha256", ".seal.dsse.json"] {
        let mut p = bundle.clone().into_os_string();
        p.push(side);
        std::fs::remove_file(p).unwrap();
    }
    let digest = proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&bundle).unwrap());
    let pins = v1.pins(Some(digest), |_| {});
    let b = verify(&bundle, Some(&pins), Some(&v1.trust()));
    assert_eq!(b.code, 1, "{}", b.stdout);
    let stable = b.check("bundle.stable");
    assert_eq!(stable["ok"], Value::Bool(true), "{stable}");
    let detail = stable["detail"].as_str().unwrap();
    assert!(detail.contains("read in two passes (v1 order"), "{detail}");
    assert!(
        detail.contains(&format!("{J_FIRST} (it comes before the client records")),
        "{detail}"
    );
    assert_eq!(point_checks(&a), point_checks(&b));
}
