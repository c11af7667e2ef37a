//! Records that no real run can produce (contract v1.1, section 6), each
//! forged end to end through the binary as the hostile review did it: a
//! publisher who edits the records also republishes the claims from them
//! (`republish_claims`) and keeps the router journal in step, so that only
//! the new rule is left to catch the forgery. Also: `run.undeclared` reads
//! every line, and a check that fails on its own evidence is a cause.

mod qualify_support;

use qualify_support::*;
use serde_json::{json, Value};

const C1: &str = "benchmark/rate-1/client.jsonl";
const PLAN: &str = "inputs/benchmark-plan.json";

/// Moves the journal's terminal event of each request in `ids` to the
/// client's new finish time (as the sample writes it, 0.2 ms after).
fn journal_finishes(c: &Case, finish: &std::collections::BTreeMap<String, f64>) {
    c.edit_records(J, |v| {
        if v["event"] == "terminal" {
            if let Some(f) = finish.get(v["request_id"].as_str().unwrap()) {
                v["at"] = json!(((f + 0.0002) * 1e6).round() / 1e6);
            }
        }
    });
}

#[test]
fn one_token_answers_that_decoded_for_minutes() {
    // Thirty requests that took 2 s per output token (the TPOT budget is
    // 0.3 s) say `output_tokens: 1`: with no TPOT they passed the
    // within-limits claim on TTFT alone, though each finished 254 s after
    // its first token.
    let c = fresh();
    let mut finish = std::collections::BTreeMap::new();
    let mut n = 0;
    c.edit_records(C05, |v| {
        if v["warmup"] == json!(false) && n < 30 {
            n += 1;
            let ft = v["first_token_at"].as_f64().unwrap();
            let fin = ((ft + 254.0) * 1e6).round() / 1e6;
            v["finished_at"] = json!(fin);
            v["output_tokens"] = json!(1);
            finish.insert(v["request_id"].as_str().unwrap().to_string(), fin);
        }
    });
    journal_finishes(&c, &finish);
    c.republish_claims();
    let o = c.verify_sealed();
    o.assert_only_failures(&["point:rate-0.5.one_token"]);
    o.assert_fails(
        "point:rate-0.5.one_token",
        "30 request(s) with at most one output token",
    );
    o.assert_fails(
        "point:rate-0.5.one_token",
        "benchmark/rate-0.5/client.jsonl:2): 1 output token(s), finished 254.000 s after its first token",
    );
    // The claim it got past: 200/200 within limits still recomputes.
    assert_eq!(o.check("point:rate-0.5.within_limits")["ok"], json!(true));
}

#[test]
fn a_billion_output_tokens_per_request() {
    let c = fresh();
    for f in [C05, C1] {
        c.edit_records(f, |v| {
            if v["status"] == "ok" {
                v["output_tokens"] = json!(1_000_000_000u64);
            }
        });
    }
    c.republish_claims();
    // TPOT is now a few nanoseconds: published with too few digits it
    // would fail on its own, so the forger leaves it out.
    c.edit_json("qualification.json", |q| {
        for p in q["points"].as_array_mut().unwrap() {
            p["claims"].as_object_mut().unwrap().remove("tpot_ms");
        }
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&["point:rate-0.5.tokens", "point:rate-1.tokens"]);
    o.assert_fails(
        "point:rate-1.tokens",
        "output_tokens 1000000000 > max_output_tokens 128",
    );
    o.assert_fails("point:rate-1.tokens", "benchmark/rate-1/client.jsonl:1)");
}

#[test]
fn a_plan_that_states_no_workload_lengths() {
    // Dropping the lengths from the plan (as every plan before v1.1 has
    // none) does not pass the rule: the token checks are not checked, the
    // verdict says the token counts are not bounded, and --require-all
    // fails them.
    let c = fresh();
    c.edit_json(PLAN, |p| {
        let o = p.as_object_mut().unwrap();
        o.remove("max_input_tokens");
        o.remove("max_output_tokens");
    });
    let o = c.verify_sealed();
    assert_eq!(o.code, 0, "{}", o.stdout);
    for id in [
        "plan.lengths",
        "point:rate-0.5.tokens",
        "point:rate-1.tokens",
    ] {
        assert_eq!(o.check(id)["reason"], "no_evidence", "{id}");
    }
    let verdict = o.report["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("VERIFIED (token counts not bounded by the plan): "),
        "{verdict}"
    );
    let strict = c.verify_require_all();
    strict.assert_fails(
        "plan.lengths",
        "names no max_input_tokens and max_output_tokens",
    );
    let t = strict.check("point:rate-1.tokens");
    assert_eq!(t["reason"], "not_checkable", "{t}");
    assert_eq!(t["cause"], "plan.lengths", "{t}");
    // One length without the other is a plan written wrong: it fails.
    let c = fresh();
    c.edit_json(PLAN, |p| {
        p.as_object_mut().unwrap().remove("max_output_tokens");
    });
    c.verify_sealed()
        .assert_fails("plan.lengths", "names no max_output_tokens");
}

#[test]
fn the_first_point_replayed_inside_the_second_points_window() {
    // The engines served both points at once (1.5 req/s), the records say
    // 0.5 and 1 req/s one after the other.
    let c = fresh();
    let shift = 3600.0 + 30.0;
    let moved = |v: &mut Value, key: &str| {
        if let Some(t) = v[key].as_f64() {
            v[key] = json!(((t + shift) * 1e6).round() / 1e6);
        }
    };
    c.edit_records(C05, |v| {
        for k in ["sent_at", "first_token_at", "finished_at"] {
            moved(v, k);
        }
    });
    c.edit_records(J, |v| {
        if v["point"] == "rate-0.5" {
            moved(v, "at");
        }
    });
    c.republish_claims();
    let o = c.verify_sealed();
    o.assert_only_failures(&["run.point_windows"]);
    o.assert_fails(
        "run.point_windows",
        "point rate-1 (the plan's next) starts at",
    );
    o.assert_fails("run.point_windows", "benchmark/rate-1/client.jsonl:1");
}

#[test]
fn points_run_in_the_other_order_than_the_plan() {
    // Both points declared and planned as rate-0.5 then rate-1, but the
    // records show rate-1 ran first.
    let c = fresh();
    let back = |v: &mut Value, key: &str| {
        if let Some(t) = v[key].as_f64() {
            v[key] = json!(((t - 5340.0) * 1e6).round() / 1e6);
        }
    };
    c.edit_records(C1, |v| {
        for k in ["sent_at", "first_token_at", "finished_at"] {
            back(v, k);
        }
    });
    c.edit_records(J, |v| {
        if v["point"] == "rate-1" {
            back(v, "at");
        }
    });
    c.republish_claims();
    let o = c.verify_sealed();
    // rate-1 now runs from 07:50, after the engines' launch and before
    // rate-0.5 starts at 08:19.
    o.assert_only_failures(&["run.point_windows"]);
    o.assert_fails("run.point_windows", "before point rate-0.5 ends");
}

#[test]
fn requests_sent_before_the_engine_was_launched_are_named() {
    let c = fresh();
    qualify_support::resign(&c, 1, &gen::engine_key(), |st| {
        st["predicate"]["launched_at"] = json!("2026-09-23T08:21:00Z");
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&["attestation:engine-1.launched_at"]);
    // The warmup (line 1) and the first measured requests of rate-0.5.
    o.assert_fails(
        "attestation:engine-1.launched_at",
        "rate-0.5-warmup-000\\\" (benchmark/rate-0.5/client.jsonl:1) sent at",
    );
    o.assert_fails(
        "attestation:engine-1.launched_at",
        "request(s) were sent before it was launched",
    );
}

#[test]
fn undeclared_copy_of_the_records_behind_a_comment_line() {
    // "The run including the dropped failures", as a second copy whose
    // first line is not a record.
    let c = fresh();
    let mut text = String::from("{\"comment\": \"raw client log\"}\n");
    text.push_str(&std::fs::read_to_string(c.path(C1)).unwrap());
    std::fs::write(c.path("benchmark/rate-1/raw.jsonl"), text).unwrap();
    let o = c.verify_sealed();
    o.assert_only_failures(&["run.undeclared"]);
    o.assert_fails(
        "run.undeclared",
        "benchmark/rate-1/raw.jsonl holds request records (line 2 names point",
    );
    // The same from the run directory.
    let o = verify(&c.run(), None, Some(&c.trust()));
    o.assert_fails("run.undeclared", "benchmark/rate-1/raw.jsonl");
}

#[test]
fn undeclared_copy_filed_as_a_fact_or_after_a_long_line() {
    // Named as a fact (so verification reads it, for its digest) it is
    // still a second copy of the records; behind a line past the 1 MiB
    // line limit it is still read.
    let c = fresh();
    let records = std::fs::read_to_string(c.path(C1)).unwrap();
    std::fs::write(c.path("inputs/raw-log.jsonl"), &records).unwrap();
    c.edit_json("qualification.json", |q| {
        q["facts"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "raw-log", "file": "inputs/raw-log.jsonl"}));
    });
    let mut padded = "#".repeat(3 << 20);
    padded.push('\n');
    padded.push_str(&records);
    std::fs::write(c.path("benchmark/padded.jsonl"), padded).unwrap();
    let o = c.verify_sealed();
    o.assert_only_failures(&["run.undeclared"]);
    o.assert_fails(
        "run.undeclared",
        "inputs/raw-log.jsonl holds request records (line 1",
    );
    o.assert_fails(
        "run.undeclared",
        "benchmark/padded.jsonl holds request records (line 2",
    );
}

#[test]
fn sends_that_share_one_instant_fail_the_offered_rate_as_a_cause() {
    // Every measured request of rate-0.5 claims the same send time: no send
    // rate at all. That is a failure on the point's own evidence.
    let c = fresh();
    let first = std::fs::read_to_string(c.path(C05))
        .unwrap()
        .lines()
        .nth(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["sent_at"].clone())
        .unwrap();
    c.edit_records(C05, |v| {
        if v["warmup"] == json!(false) {
            v["sent_at"] = first.clone();
        }
    });
    c.republish_claims();
    let o = c.verify_sealed();
    o.assert_fails(
        "point:rate-0.5.offered_rate",
        "all 200 measured requests share one send time",
    );
    let rate = o.check("point:rate-0.5.offered_rate");
    assert!(rate.get("reason").is_none(), "a cause, not an echo: {rate}");
    assert!(!rate.to_string().contains("distinct send times"), "{rate}");
    let s = &o.report["summary"];
    assert_eq!(s["not_checkable"], json!(0), "{s}");
}
