//! The forged cases of issue 9, each rebuilt end to end through the binary:
//! a hostile publisher's edit that got `VERIFIED` under contract v1 and now
//! fails (exit 1, or 2 for an unusable argument) with the check that stops
//! it named. Test names are the defects' names.
//!
//! Where the publisher would also recompute the published numbers from the
//! edited records, the test does so (`republish_claims`), so that the only
//! thing left to catch the forgery is the new rule.

mod qualify_support;

use std::ffi::OsStr;
use std::path::Path;

use qualify_support::*;
use serde_json::{json, Value};

const C1: &str = "benchmark/rate-1/client.jsonl";
const PLAN: &str = "inputs/benchmark-plan.json";

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Seals the case, pins the new bundle and verifies it with trust.
fn verify_sealed(c: &Case) -> Outcome {
    c.verify_sealed()
}

#[test]
fn empty_pins_file_is_an_unusable_argument() {
    let c = fresh();
    let pins = c.dir.path().join("empty-pins.json");
    std::fs::write(&pins, r#"{"schema": "proofpack/pins/v1", "pins": []}"#).unwrap();
    c.seal();
    let (code, _, stderr) = proofpack(&[
        os("verify"),
        c.bundle_path().as_os_str(),
        os("--pins"),
        pins.as_os_str(),
        os("--trust"),
        c.trust().as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("empty-pins.json"), "{stderr}");
    assert!(stderr.contains("lists no pins"), "{stderr}");
}

#[test]
fn qualification_with_no_claims() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        for p in q["points"].as_array_mut().unwrap() {
            p["claims"] = json!({});
        }
    });
    let o = verify_sealed(&c);
    o.assert_fails("point:rate-0.5.claims", "nothing published to check");
    o.assert_fails("point:rate-1.claims", "nothing published to check");
    // The human verdict says FAILED, never VERIFIED above the table.
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let (code, stdout, _) = proofpack(&[
        os("verify"),
        c.bundle_path().as_os_str(),
        os("--pins"),
        pins.as_os_str(),
        os("--trust"),
        c.trust().as_os_str(),
    ]);
    assert_eq!(code, 1);
    assert!(stdout.contains("\nFAILED: "), "{stdout}");
    assert!(!stdout.contains("\nVERIFIED"), "{stdout}");
}

#[test]
fn coarse_claims_pass_by_rounding() {
    // "1" req/s for a measured 0.850, "0" for 0.426, "8" s for 7.762: each
    // within half a unit of its last digit, none a check of anything.
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][1]["claims"]["completed_rate"] = json!("1");
        q["points"][0]["claims"]["completed_rate"] = json!("0");
        q["points"][1]["claims"]["ttft_s"]["p99"] = json!("8");
    });
    let o = verify_sealed(&c);
    o.assert_fails("point:rate-1.claim.completed_rate", "significant digit");
    o.assert_fails("point:rate-0.5.claim.completed_rate", "too coarse to check");
    o.assert_fails("point:rate-1.claim.ttft_s.p99", "at least 3");
    assert_eq!(o.failed().len(), 3, "{:?}", o.failed());
}

#[test]
fn failed_requests_removed_and_197_declared() {
    let c = fresh();
    let mut dropped = Vec::new();
    c.edit_lines(C1, |lines| {
        lines.retain(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let keep = v["warmup"] == json!(true) || v["status"] == json!("ok");
            if !keep {
                dropped.push(v["request_id"].as_str().unwrap().to_string());
            }
            keep
        })
    });
    assert_eq!(dropped.len(), 3);
    c.edit_lines(J, |lines| {
        lines.retain(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            !dropped.iter().any(|d| v["request_id"] == json!(d))
        })
    });
    c.edit_json("qualification.json", |q| {
        q["points"][1]["requests"] = json!(197)
    });
    c.republish_claims();
    let o = verify_sealed(&c);
    // Everything else is consistent: only the sealed plan says 200.
    o.assert_only_failures(&["plan.points"]);
    o.assert_fails(
        "plan.points",
        "rate-1: requests 200 in the plan, 197 declared",
    );
}

#[test]
fn offered_rate_never_checked() {
    // Declare 4 req/s (in the plan too) for records sent at about 1 req/s.
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][1]["offered_rate"] = json!(4.0)
    });
    c.edit_json(PLAN, |p| p["points"][1]["offered_rate"] = json!(4.0));
    let o = verify_sealed(&c);
    o.assert_only_failures(&["point:rate-1.offered_rate"]);
    o.assert_fails("point:rate-1.offered_rate", "measured send rate 1.01");
}

#[test]
fn measured_request_relabelled_as_warmup() {
    // The request sent about 47 s into the run becomes "the warmup"; the real
    // warmup becomes a measured request. The warmup count still matches.
    let c = fresh();
    let lines: Vec<Value> = std::fs::read_to_string(c.path(C1))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = lines[1]["sent_at"].as_f64().unwrap();
    let victim = lines
        .iter()
        .skip(1)
        .min_by(|a, b| {
            let da = (a["sent_at"].as_f64().unwrap() - first - 47.0).abs();
            let db = (b["sent_at"].as_f64().unwrap() - first - 47.0).abs();
            da.total_cmp(&db)
        })
        .unwrap()["request_id"]
        .clone();
    c.edit_records(C1, |v| {
        if v["request_id"] == victim {
            v["warmup"] = json!(true);
        } else if v["warmup"] == json!(true) {
            v["warmup"] = json!(false);
        }
    });
    c.republish_claims();
    let o = verify_sealed(&c);
    o.assert_only_failures(&["point:rate-1.warmup_order"]);
    o.assert_fails("point:rate-1.warmup_order", "sent before warmup");
}

#[test]
fn client_first_token_moved_two_seconds_earlier() {
    let c = fresh();
    c.edit_records(C05, |v| {
        if let Some(ft) = v["first_token_at"].as_f64() {
            v["first_token_at"] = json!(ft - 2.0);
        }
    });
    c.republish_claims();
    let o = verify_sealed(&c);
    o.assert_only_failures(&["point:rate-0.5.journal.timing"]);
    o.assert_fails("point:rate-0.5.journal.timing", "first token at");
}

#[test]
fn journal_shifted_by_a_year() {
    let c = fresh();
    c.edit_records(J, |v| {
        let at = v["at"].as_f64().unwrap();
        v["at"] = json!(at + 365.0 * 86400.0);
    });
    let o = verify_sealed(&c);
    o.assert_only_failures(&[
        "point:rate-0.5.journal.timing",
        "point:rate-1.journal.timing",
    ]);
    o.assert_fails("point:rate-1.journal.timing", "apart");
}

#[test]
fn point_dropped_while_its_records_and_plan_entry_stay() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"].as_array_mut().unwrap().remove(1);
    });
    let o = verify_sealed(&c);
    o.assert_only_failures(&["plan.points", "run.undeclared"]);
    o.assert_fails("plan.points", "the plan runs point");
    o.assert_fails("run.undeclared", "benchmark/rate-1/client.jsonl");
}

#[test]
fn records_and_journal_events_of_an_undeclared_point_ignored() {
    // The point is dropped from the plan too: its records and events stay.
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"].as_array_mut().unwrap().remove(1);
    });
    c.edit_json(PLAN, |p| {
        p["points"].as_array_mut().unwrap().remove(1);
    });
    let o = verify_sealed(&c);
    o.assert_only_failures(&["run.undeclared"]);
    o.assert_fails("run.undeclared", "benchmark/rate-1/client.jsonl");
    o.assert_fails(
        "run.undeclared",
        "router-journal.jsonl: 802 event(s) of point",
    );
}

#[test]
fn second_records_file_for_a_declared_point_ignored() {
    let c = fresh();
    std::fs::copy(c.path(C1), c.path("benchmark/rate-1/client-retry.jsonl")).unwrap();
    let o = verify_sealed(&c);
    o.assert_only_failures(&["run.undeclared"]);
    o.assert_fails("run.undeclared", "client-retry.jsonl");
}

#[test]
fn weights_pin_passes_when_no_engine_attests_the_weights() {
    // The publisher leaves weights.manifest out of required_subjects and out
    // of every attestation; the pin then only met a file in manifests/.
    let c = fresh();
    let key = gen::engine_key();
    for e in 0..gen::ENGINES {
        let st = gen::engine_statement(
            e,
            &[
                ("config.json", c.sample.config),
                ("engine-image", c.sample.image),
            ],
            &c.sample.image,
            gen::MODEL,
        );
        std::fs::write(
            c.path(&format!("attestations/engine-{e}.dsse.json")),
            gen::sign_envelope(&st, &[&key]),
        )
        .unwrap();
    }
    c.edit_json("qualification.json", |q| {
        q["required_subjects"] = json!(["config.json", "engine-image"])
    });
    let o = verify_sealed(&c);
    o.assert_fails("pin:weights.manifest", "has no subject weights.manifest");
    o.assert_fails("attestation:engine-0.subjects", "weights.manifest");
}

fn structure_only(c: &Case, json: bool) -> (i32, String) {
    let bundle = c.bundle_path();
    let mut args = vec![os("verify"), bundle.as_os_str(), os("--structure-only")];
    if json {
        args.push(os("--json"));
    }
    let (code, stdout, stderr) = proofpack(&args);
    (code, format!("{stdout}\n{stderr}"))
}

#[test]
fn structure_only_without_trust_skips_a_garbage_seal() {
    let c = fresh();
    c.seal();
    let seal = format!("{}.seal.dsse.json", c.bundle_path().display());
    std::fs::write(&seal, "this is not a seal").unwrap();
    let o = verify_with(&c.bundle_path(), &[os("--structure-only")]);
    o.assert_fails("seal.structure", "not a well-formed envelope");
    // A real seal of other bytes is as wrong as garbage.
    let other = fresh();
    other.edit_json("qualification.json", |q| q["name"] = json!("other-run"));
    other.seal();
    std::fs::copy(
        format!("{}.seal.dsse.json", other.bundle_path().display()),
        &seal,
    )
    .unwrap();
    let o = verify_with(&c.bundle_path(), &[os("--structure-only")]);
    o.assert_fails("seal.structure", "the seal is for other bytes");
}

#[test]
fn structure_only_without_trust_says_seal_not_checked_never_intact() {
    let c = fresh();
    c.seal();
    let (code, out) = structure_only(&c, false);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("VERIFIED (structure only, seal not checked)"),
        "{out}"
    );
    assert!(!out.contains("intact"), "{out}");
    let (_, json) = structure_only(&c, true);
    let v: Value = serde_json::from_str(json.split("\n\n").next().unwrap().trim()).unwrap();
    let seal = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "seal")
        .unwrap();
    assert_eq!(seal["ok"], Value::Null);
    assert!(v["verdict"]
        .as_str()
        .unwrap()
        .starts_with("VERIFIED (structure only, seal not checked)"));
    assert!(seal["detail"]
        .as_str()
        .unwrap()
        .contains("signature not checked"));
}

fn seal_run(c: &Case, out: &Path) -> (i32, String) {
    let (code, stdout, stderr) =
        proofpack(&[os("seal"), c.run().as_os_str(), os("-o"), out.as_os_str()]);
    (code, format!("{stdout}\n{stderr}"))
}

#[test]
fn seal_follows_a_symlink_out_of_the_run_directory() {
    let c = fresh();
    let outside = c.dir.path().join("hostname");
    std::fs::write(&outside, "build-host-17\n").unwrap();
    std::os::unix::fs::symlink(&outside, c.path("inputs/hostname")).unwrap();
    let out = c.dir.path().join("out.tgz");
    let (code, msg) = seal_run(&c, &out);
    assert_eq!(code, 1, "{msg}");
    assert!(
        msg.contains("inputs/hostname") && msg.contains("symlink"),
        "{msg}"
    );
    assert!(!out.exists());
    // The same tree gets the same answer from verify RUN_DIR.
    let pins = c.pins(None, |_| {});
    let o = verify(&c.run(), Some(&pins), Some(&c.trust()));
    o.assert_fails("run.tree", "inputs/hostname");
}

#[test]
fn seal_refuses_hard_links_to_outside_files_and_special_files() {
    let c = fresh();
    let outside = c.dir.path().join("shared.json");
    std::fs::write(&outside, "{}\n").unwrap();
    std::fs::hard_link(&outside, c.path("inputs/shared.json")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(c.path("inputs/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = c.dir.path().join("out.tgz");
    let (code, msg) = seal_run(&c, &out);
    assert_eq!(code, 1, "{msg}");
    assert!(
        msg.contains("inputs/shared.json") && msg.contains("hard link"),
        "{msg}"
    );
    assert!(msg.contains("inputs/pipe") && msg.contains("FIFO"), "{msg}");
    assert!(!out.exists());
    let pins = c.pins(None, |_| {});
    let o = verify(&c.run(), Some(&pins), Some(&c.trust()));
    o.assert_fails("run.tree", "inputs/shared.json");
    o.assert_fails("run.tree", "inputs/pipe");
    // Two links that both lie inside the run are fine.
    let d = fresh();
    std::fs::hard_link(d.path(PLAN), d.path("inputs/plan-copy.json")).unwrap();
    let (code, msg) = seal_run(&d, &d.dir.path().join("ok.tgz"));
    assert_eq!(code, 0, "{msg}");
}

#[test]
fn any_engine_key_attests_for_any_engine() {
    // The engine key is trusted only for engine-0..2; engine-3 has its own
    // key, but its attestation was signed with the first one.
    let c = fresh();
    let other = gen::test_key("engine-3 only");
    let mut t: Value = serde_json::from_slice(&gen::trust_json(&[
        (&gen::engine_key(), &["engine"], "engines 0-2"),
        (&other, &["engine"], "engine-3"),
        (&gen::release_key(), &["release"], "release"),
    ]))
    .unwrap();
    t["keys"][0]["engines"] = json!(["engine-0", "engine-1", "engine-2"]);
    t["keys"][1]["engines"] = json!(["engine-3"]);
    std::fs::write(c.trust(), serde_json::to_vec_pretty(&t).unwrap()).unwrap();
    let o = verify_sealed(&c);
    o.assert_fails("attestation:engine-3", "restricted to other engines");
    for e in 0..3 {
        assert_eq!(
            o.check(&format!("attestation:engine-{e}"))["ok"],
            json!(true)
        );
    }
}

#[test]
fn attestation_launched_after_the_run_started() {
    let c = fresh();
    qualify_support::resign(&c, 2, &gen::engine_key(), |st| {
        st["predicate"]["launched_at"] = json!("2026-09-23T09:30:00Z");
    });
    let o = verify_sealed(&c);
    o.assert_only_failures(&["attestation:engine-2.launched_at"]);
    o.assert_fails(
        "attestation:engine-2.launched_at",
        "after the first request",
    );
}
