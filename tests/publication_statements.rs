//! The statements of the write-up's prose, through the binary (contract
//! section 9.6, v1.1): each sentence or clause holding a number, digest,
//! count or outcome is a check `publication:statement:<line>[.<k>]` with
//! its line and text; the ones proofpack reads are checked against the
//! sealed evidence, the rest are named as not checked and fail under
//! `--require-all`. Each forged case is what a hostile publisher would
//! write over honest evidence.

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::path::Path;

use base64::Engine as _;
use publication_support::*;
use serde_json::{json, Value};

const TITLE: &str = "publication:statement:1";
const LAUNCH: &str = "publication:statement:20.1";
const MANIFESTS: &str = "publication:statement:20.2";
const PROFILES: &str = "publication:statement:20.3";
const PROBES: &str = "publication:statement:22.1";
const PROBE_RANGE: &str = "publication:statement:22.2";
const DERIVED: &str = "publication:statement:22.3";
const GATES: &str = "publication:statement:22.4";
const PLAN: &str = "publication:statement:24.1";
const PLAN_LINKS: &str = "publication:statement:24.2";
const CLIENT_OPTIONS: &str = "publication:statement:24.3";
const RESULT: &str = "publication:statement:26.1";
const WARMUP: &str = "publication:statement:26.2";
const TERMINAL: &str = "publication:statement:26.3";
const COVERAGE: &str = "publication:statement:28.1";
const DIAGNOSTIC: &str = "publication:statement:28.2";
const COLLECTOR: &str = "publication:statement:28.3";
const POST_LOAD: &str = "publication:statement:28.4";
const BUNDLE: &str = "publication:statement:35.1";
const INVENTORY: &str = "publication:statement:35.2";

fn statements(o: &Outcome) -> Vec<Value> {
    o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["id"]
                .as_str()
                .unwrap()
                .starts_with("publication:statement:")
        })
        .cloned()
        .collect()
}

#[test]
fn the_sample_checks_every_statement_of_its_prose_with_require_all() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let o = verify_with(
        &root.join("kimi-k3-mi355x-20260923-sample.tgz"),
        &[
            os("--publication"),
            root.join("PUBLICATION.md").as_os_str(),
            os("--trust"),
            root.join("trust.json").as_os_str(),
            os("--require-all"),
        ],
    );
    o.assert_ok();
    let st = statements(&o);
    let ids: Vec<&str> = st.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            TITLE,
            LAUNCH,
            MANIFESTS,
            PROFILES,
            PROBES,
            PROBE_RANGE,
            DERIVED,
            GATES,
            PLAN,
            PLAN_LINKS,
            CLIENT_OPTIONS,
            RESULT,
            WARMUP,
            TERMINAL,
            COVERAGE,
            DIAGNOSTIC,
            COLLECTOR,
            POST_LOAD,
            BUNDLE,
            INVENTORY
        ]
    );
    let text = std::fs::read_to_string(root.join("PUBLICATION.md")).unwrap();
    for c in &st {
        assert_eq!(c["ok"], json!(true), "{c}");
        let line = c["source"]["line"].as_u64().unwrap() as usize;
        let t = c["source"]["text"].as_str().unwrap();
        let src = text.lines().nth(line - 1).unwrap();
        assert!(src.contains(t), "{t:?} is not on line {line}: {src:?}");
    }
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains("(20 of 20 statement(s) of the prose checked, 0 bound by the publisher, 0 not checked), every row, cell and statement mapped to evidence"),
        "{v}"
    );
}

#[test]
fn a_statement_no_grammar_reads_is_named_and_fails_require_all() {
    let p = published();
    p.edit(
        "Measured points¶",
        "Every engine answered 100% of its health probes.\n\nMeasured points¶",
    );
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check("publication:statement:25");
    assert_eq!(c["ok"], Value::Null, "{c}");
    assert_eq!(c["reason"], "not_read");
    assert_eq!(
        c["source"],
        json!({"line": 25, "text": "Every engine answered 100% of its health probes."})
    );
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains("(20 of 21 statement(s) of the prose checked, 0 bound by the publisher, 1 not checked); 1 statement(s) of the prose NOT CHECKED (no grammar reads them): statement:25")
            && !v.contains("every row, cell and statement mapped"),
        "{v}"
    );
    p.verify(&[os("--require-all")])
        .assert_fails("publication:statement:25", "no grammar of proofpack reads");
}

#[test]
fn all_within_limits_over_records_with_failures_fails() {
    let p = published();
    p.edit(
        "Both points completed 397/400 within limits, 2 failed, 1 timed out.",
        "Both points completed 400/400 within limits, no error.",
    );
    p.verify(&[]).assert_fails(
        RESULT,
        "the records give 397/400 within limits, 2 failed, 1 timed out, 0 cancelled",
    );
}

#[test]
fn a_failure_list_that_leaves_out_a_timeout_fails() {
    let p = published();
    p.edit(
        "397/400 within limits, 2 failed, 1 timed out.",
        "397/400 within limits, 2 failed.",
    );
    p.verify(&[]).assert_fails(RESULT, "1 timed out");
}

#[test]
fn one_point_by_its_rate() {
    let p = published();
    p.edit(
        "Both points completed 397/400 within limits, 2 failed, 1 timed out.",
        "The 0.5 request/s point completed 200/200 within limits, no error.",
    );
    p.verify(&[os("--require-all")]).assert_ok();
    p.edit("The 0.5 request/s point", "The 1 request/s point");
    p.verify(&[])
        .assert_fails(RESULT, "the records give 197/200");
}

#[test]
fn terminal_requests_off_by_one_fail() {
    let p = published();
    p.edit("201 terminal requests", "202 terminal requests");
    p.verify(&[])
        .assert_fails(TERMINAL, "the client records hold 201 record(s)");
}

#[test]
fn a_journal_missing_a_terminal_event_leaves_the_count_not_checkable() {
    let mut p = published();
    // The journal loses one request's terminal event (not a warmup).
    p.c.edit_lines(qualify_support::J, |lines| {
        let at = lines
            .iter()
            .position(|l| l.contains("\"rate-1-000000\"") && l.contains("\"terminal\""))
            .unwrap();
        lines.remove(at);
    });
    p.reseal();
    let o = p.verify(&[]);
    // One cause: the journal's terminal events are not the records'. The
    // statement counting them is not checkable under it.
    o.assert_fails("point:rate-1.journal.terminal", "rate-1-000000");
    let c = o.check(TERMINAL);
    assert_eq!(c["reason"], "not_checkable", "{c}");
    assert_eq!(c["cause"], "point:rate-1.journal.terminal", "{c}");
}

#[test]
fn two_warmups_stated_over_one_fails() {
    let p = published();
    p.edit(
        "excludes one completed warmup request",
        "excludes two completed warmup requests",
    );
    p.verify(&[]).assert_fails(WARMUP, "declares 1 warmup(s)");
}

#[test]
fn the_plan_sentence_is_checked_against_the_plan() {
    let p = published();
    p.edit(
        "ordered 0.5 and 1 request/s points",
        "ordered 1 and 0.5 request/s points",
    );
    p.verify(&[])
        .assert_fails(PLAN, "declares 0.5 request/s (200 requests), 1 request/s");
    let p = published();
    p.edit("points, 200 requests each", "points, 2,000 requests each");
    p.verify(&[]).assert_fails(PLAN, "(200 requests)");
}

#[test]
fn a_bundle_named_otherwise_fails() {
    let p = published();
    p.edit(
        "bundle is kimi-k3-mi355x-20260923-sample.tgz",
        "bundle is kimi-k3-mi355x-20260924-sample.tgz",
    );
    p.verify(&[]).assert_fails(BUNDLE, "the run names itself");
}

/// Re-signs every host report of the case with its predicate edited.
fn edit_host_reports(p: &Pub, edit: impl Fn(&mut Value)) {
    let b64 = base64::engine::general_purpose::STANDARD;
    for e in 1..=4 {
        let rel = format!("hosts/mi355x-node-0{e}.qual.example.dsse.json");
        let env: Value = serde_json::from_slice(&std::fs::read(p.c.path(&rel)).unwrap()).unwrap();
        let payload = b64.decode(env["payload"].as_str().unwrap()).unwrap();
        let mut st: Value = serde_json::from_slice(&payload).unwrap();
        edit(&mut st["predicate"]);
        std::fs::write(
            p.c.path(&rel),
            qualify_support::gen::sign_envelope(&st, &[&qualify_support::gen::host_key()]),
        )
        .unwrap();
    }
}

#[test]
fn a_config_hash_the_operator_only_stated_fails_the_launch_sentence() {
    let mut p = published();
    edit_host_reports(&p, |pr| pr["config_source"] = json!("stated"));
    p.reseal();
    let o = p.verify(&[]);
    o.assert_fails(
        LAUNCH,
        "is config_source \\\"stated\\\", not hashed from a file on the host",
    );
    // The host checks themselves hold: only the sentence claims more.
    assert!(
        o.failed().iter().all(|id| !id.starts_with("host:")),
        "{:?}",
        o.failed()
    );
}

#[test]
fn a_failed_host_check_fails_the_launch_sentence() {
    let mut p = published();
    edit_host_reports(&p, |pr| {
        if pr["host"] == "mi355x-node-03.qual.example" {
            pr["passed"] = json!(false);
            pr["failed"] = json!(1);
        }
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        LAUNCH,
        "the host launch checks do not all hold: host:mi355x-node-03.qual.example.passed",
    );
}

#[test]
fn a_packaged_fleet_that_differs_in_a_second_key_fails_the_derived_input_rule() {
    let mut p = published();
    p.c.edit_json("inputs/fleet-packaged.json", |f| {
        f["engines"][2]["parallelism"]["tensor"] = json!(4);
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        DERIVED,
        "differ in engines[2].parallelism.tensor, first_token_deadline_s",
    );
}

#[test]
fn a_derived_value_other_than_the_qualified_fleets_fails() {
    let p = published();
    p.edit(
        "changes only first_token_deadline_s to 8.5 s",
        "changes only first_token_deadline_s to 9.5 s",
    );
    p.verify(&[])
        .assert_fails(DERIVED, "has first_token_deadline_s = 8.5");
    let p = published();
    p.edit(
        "changes only first_token_deadline_s to",
        "changes only first_token_timeout_s to",
    );
    p.verify(&[])
        .assert_fails(DERIVED, "differ in first_token_deadline_s");
}

#[test]
fn a_gate_named_but_absent_from_the_preflight_report_fails() {
    let p = published();
    p.edit(
        "health and clock-skew gates",
        "health, KV transfer and clock-skew gates",
    );
    p.verify(&[])
        .assert_fails(GATES, "has no gate \\\"KV transfer\\\"");
}

#[test]
fn a_preflight_with_a_failed_gate_fails_the_gates_sentence() {
    let mut p = published();
    p.c.edit_json("preflight.json", |r| r["checks"][3]["ok"] = json!(false));
    p.reseal();
    p.verify(&[])
        .assert_fails(GATES, "gate(s) clock-skew did not pass");
}

#[test]
fn full_launch_checks_on_more_hosts_or_in_sizes_only_mode_fail() {
    let p = published();
    p.edit(
        "Measured points¶",
        "Full SHA-256 launch checks passed on 8 hosts.\n\nMeasured points¶",
    );
    p.verify(&[])
        .assert_fails("publication:statement:25", "the run has 4 host report(s)");
    let p = published();
    p.edit(
        "Measured points¶",
        "The launch checks hashed every shard in full on four hosts.\n\nMeasured points¶",
    );
    p.verify(&[]).assert_fails(
        "publication:statement:25",
        "launch check was made in mode sizes-only, not full",
    );
}

/// A number is what a reader reads: the decimal digits of every script
/// (mathematical, full-width, Arabic-Indic ...) are read as the digits
/// they show, in cells and in prose alike.
#[test]
fn digits_of_other_scripts_are_read_as_the_numbers_readers_see() {
    let p = published();
    let honest = p.text();
    // Honest equivalents verify, each value checked.
    p.edit(
        "| 55.4 tokens/s |",
        "| \u{1d7f1}\u{1d7f1}.\u{1d7f0} tokens/s |",
    );
    p.edit("200 requests each", "\u{662}\u{660}\u{660} requests each");
    let o = p.verify(&[os("--require-all")]);
    o.assert_ok();
    assert_eq!(
        o.check("publication:point:0.5.output_throughput")["ok"],
        true
    );
    assert_eq!(o.check(PLAN)["ok"], true);
    // Forged: the higher point's throughput in monospace digits in the
    // lower point's row; a probe range in full-width digits.
    std::fs::write(&p.path, &honest).unwrap();
    p.edit(
        "| 55.4 tokens/s |",
        "| \u{1d7f7}\u{1d7f6}\u{1d7fd}.\u{1d7f6} tokens/s |",
    );
    p.verify(&[]).assert_fails(
        "publication:point:0.5.output_throughput",
        "does not round to published 107.0",
    );
    std::fs::write(&p.path, &honest).unwrap();
    p.edit(
        "ranged from 0.401 to 5.102 s",
        "ranged from \u{ff10}.\u{ff14}\u{ff10}\u{ff11} to \u{ff19}.\u{ff11}\u{ff10}\u{ff12} s",
    );
    p.verify(&[]).assert_fails(PROBE_RANGE, "9.102");
}

/// Every sentence is a statement, whatever words it uses: a sentence with
/// no number, count or outcome word is no longer "not a claim". Each of
/// these (the last from a published write-up) is named as not checked,
/// counted in the verdict, and fails under --require-all.
#[test]
fn sentences_without_claim_words_are_statements_not_checked() {
    let p = published();
    let honest = p.text();
    for sentence in [
        "Neither point saw a timeout.",
        "Throughput tripled from the lower-rate to the higher-rate point.",
        "Output throughput exceeded ninety tokens per second.",
        "TTFT stayed under a second.",
        "The router shifted capacity toward decode during the lower-rate point.",
    ] {
        std::fs::write(&p.path, &honest).unwrap();
        p.edit(
            "Measured points¶",
            &format!("{sentence}\n\nMeasured points¶"),
        );
        let o = p.verify(&[]);
        o.assert_ok();
        let c = o.check("publication:statement:25");
        assert_eq!(c["ok"], Value::Null, "{sentence}: {c}");
        assert_eq!(c["reason"], "not_read", "{sentence}");
        assert_eq!(c["source"]["text"], sentence);
        let v = o.report["verdict"].as_str().unwrap();
        assert!(
            v.contains("(20 of 21 statement(s) of the prose checked, 0 bound by the publisher, 1 not checked); 1 statement(s) of the prose NOT CHECKED")
                && !v.contains("every row, cell and statement mapped"),
            "{sentence}: {v}"
        );
        p.verify(&[os("--require-all")])
            .assert_fails("publication:statement:25", "no grammar of proofpack reads");
    }
    // A heading is a sentence too; only the tables' section titles are not.
    std::fs::write(&p.path, &honest).unwrap();
    p.edit("Pinned inputs¶", "Results at a glance¶");
    let o = p.verify(&[]);
    assert_eq!(o.check("publication:statement:3")["reason"], "not_read");
}

/// The title is read: a benchmark qualification of the run's model.
#[test]
fn a_title_naming_another_model_fails() {
    let p = published();
    p.edit(
        "Kimi-K3 GPU benchmark qualification",
        "Llama-4 GPU benchmark qualification",
    );
    p.verify(&[])
        .assert_fails(TITLE, "the run's model is moonshotai/Kimi-K3");
    let p = published();
    p.edit(
        "Kimi-K3 GPU benchmark qualification",
        "moonshotai/Kimi-K3 benchmark qualification",
    );
    assert_eq!(p.verify(&[os("--require-all")]).check(TITLE)["ok"], true);
}

/// A role name is the publisher's word: "It contains ... client logs with
/// zero failed or timed-out requests" over a run with failures is not
/// checked (never evidence for itself), and fails under --require-all.
#[test]
fn a_claim_written_as_a_role_name_is_not_evidence() {
    let mut p = published();
    let role = "client logs with zero failed or timed-out requests";
    p.c.edit_json("qualification.json", |q| {
        q["roles"][role] = json!(["benchmark/*/client.jsonl"]);
    });
    p.reseal();
    p.edit(
        "It contains the client records,",
        &format!("It contains the {role},"),
    );
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check(INVENTORY);
    assert_eq!(c["ok"], Value::Null, "{c}");
    assert_eq!(c["reason"], "stated_by_publisher", "{c}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("a name the publisher chose"),
        "{c}"
    );
    assert!(
        !o.report["verdict"]
            .as_str()
            .unwrap()
            .contains("every row, cell and statement mapped"),
        "{}",
        o.report["verdict"]
    );
    p.verify(&[os("--require-all")])
        .assert_fails(INVENTORY, "only the publisher's word");
}

/// A role proofpack knows must hold every file the run names as such: a
/// preflight role that leaves out the plan's preflight report fails.
#[test]
fn a_known_role_that_leaves_out_the_runs_file_fails() {
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["roles"]["preflight report"] = json!(["post-load.json"]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(INVENTORY, "leaves out preflight.json");
}

/// An ordered-list item shows its number: "200. higher-rate point" is a
/// list item numbered 200 on GitHub, and proofpack reads the number too.
#[test]
fn an_ordered_list_items_number_is_part_of_its_statement() {
    let p = published();
    p.edit(
        "Measured points¶",
        "200. higher-rate point\n\nMeasured points¶",
    );
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check("publication:statement:25");
    assert_eq!(c["source"]["text"], "200. higher-rate point", "{c}");
    assert_eq!(c["reason"], "not_read");
    p.verify(&[os("--require-all")])
        .assert_fails("publication:statement:25", "no grammar of proofpack reads");
}
