//! Cases the contract decides (docs/spec/FORMATS.md, the v1.1 notes of
//! 2026-12-08), each through the binary on an edited, resealed sample.

mod qualify_support;

use qualify_support::*;

/// A journal with no event of a request witnesses none of its times:
/// `journal.timing` fails naming it (it has a `first_token` event exactly
/// when the client's `first_token_at` is not null), beside
/// `journal.terminal`.
#[test]
fn a_request_with_no_journal_event_fails_timing() {
    let c = fresh();
    c.edit_lines(J, |l| l.retain(|e| !e.contains("\"rate-1-000007\"")));
    let o = c.verify_sealed();
    o.assert_fails(
        "point:rate-1.journal.timing",
        "request \\\"rate-1-000007\\\"",
    );
    o.assert_fails(
        "point:rate-1.journal.timing",
        "the journal has no event of it: none of its times is witnessed",
    );
    o.assert_fails("point:rate-1.journal.terminal", "rate-1-000007");
    assert_eq!(o.check("point:rate-0.5.journal.timing")["ok"], true);
}

/// An empty journal cannot witness TTFT: every point's `journal.timing`
/// fails.
#[test]
fn an_empty_journal_fails_timing_for_every_point() {
    let c = fresh();
    std::fs::write(c.path(J), b"").unwrap();
    let o = c.verify_sealed();
    for p in ["rate-0.5", "rate-1"] {
        o.assert_fails(
            &format!("point:{p}.journal.timing"),
            "201 request(s) whose times the journal does not witness",
        );
    }
}

/// A second terminal event is `journal.terminal`'s finding alone (one
/// cause, one failure): `journal.timing` judges the events up to the first
/// terminal one.
#[test]
fn a_second_terminal_event_fails_terminal_alone() {
    let c = fresh();
    c.edit_lines(J, |l| {
        let at = l
            .iter()
            .position(|e| e.contains("\"rate-1-000003\"") && e.contains("\"terminal\""))
            .unwrap();
        let again = l[at].clone();
        l.insert(at + 1, again);
    });
    let o = c.verify_sealed();
    o.assert_fails("point:rate-1.journal.terminal", "has 2 terminal events");
    assert_eq!(o.check("point:rate-1.journal.timing")["ok"], true);
}

fn sealed(c: &Case) -> Outcome {
    c.seal();
    c.verify_published(&c.bundle_path())
}

/// Two records of a point with one request id: `unique_ids` fails naming
/// both lines, and the journal checks, which pair events with records by
/// id, are not checkable under it; so is the statement counting terminal
/// requests (through `journal.terminal`).
#[test]
fn a_repeated_request_id_leaves_the_journal_checks_not_checkable() {
    let c = fresh();
    c.edit_lines("benchmark/rate-1/client.jsonl", |l| {
        l[5] = l[5].replace("\"rate-1-000004\"", "\"rate-1-000003\"");
    });
    let o = sealed(&c);
    o.assert_fails("point:rate-1.unique_ids", "duplicate request id");
    for n in [
        "journal.terminal",
        "journal.orphans",
        "status",
        "journal.timing",
    ] {
        let k = o.check(&format!("point:rate-1.{n}"));
        assert_eq!(k["reason"], "not_checkable", "{n}: {k}");
        assert_eq!(k["cause"], "point:rate-1.unique_ids", "{n}: {k}");
    }
    let s = o.check("publication:statement:26.3");
    assert_eq!(s["reason"], "not_checkable", "{s}");
}

/// One diagnostic per declared counter, however often the collector
/// report declares it: the sample's "one counter_missing diagnostic for
/// router_flips_total" still holds with the counter declared twice.
#[test]
fn a_counter_declared_twice_is_one_diagnostic() {
    let c = fresh();
    c.edit_json("benchmark/rate-0.5/collector.json", |v| {
        let counters = v["counters"].as_array_mut().unwrap();
        counters.push(serde_json::json!("router_flips_total"));
    });
    let o = sealed(&c);
    let s = o.check("publication:statement:28.2");
    assert_eq!(s["ok"], true, "{s}");
}

/// A statement about the plan of a run that names none is not checkable
/// under `qualification.plan`, which fails.
#[test]
fn statements_about_an_unnamed_plan_are_not_checkable() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q.as_object_mut().unwrap().remove("plan");
    });
    let o = sealed(&c);
    o.assert_fails("qualification.plan", "names no benchmark plan");
    for id in ["publication:statement:24.1", "publication:statement:22.1"] {
        let s = o.check(id);
        assert_eq!(s["cause"], "qualification.plan", "{id}: {s}");
    }
}

/// `"host_checks": []` states no check: `host:*` is not checked (no
/// evidence), as without the field, and fails under `--require-all`.
#[test]
fn an_empty_host_check_list_is_no_evidence() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["host_checks"] = serde_json::json!([])
    });
    let o = sealed(&c);
    let h = o.check("host:*");
    assert_eq!(h["ok"], serde_json::Value::Null, "{h}");
    assert_eq!(h["reason"], "no_evidence", "{h}");
    let o = c.verify_require_all();
    let h = o.check("host:*");
    assert_eq!(h["ok"], false, "{h}");
}

/// While an engine attestation does not verify, the host reports are not
/// judged: `host:*` is one check, not checkable under that attestation.
#[test]
fn host_checks_wait_for_every_attestation() {
    let c = fresh();
    let p = c.path("attestations/engine-0.dsse.json");
    let mut env: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    let sig = env["signatures"][0]["sig"].as_str().unwrap().to_string();
    let flipped = format!(
        "{}{}",
        if sig.starts_with('A') { "B" } else { "A" },
        &sig[1..]
    );
    env["signatures"][0]["sig"] = serde_json::json!(flipped);
    std::fs::write(&p, serde_json::to_vec(&env).unwrap()).unwrap();
    let o = sealed(&c);
    o.assert_fails("attestation:engine-0", "does not verify");
    let h = o.check("host:*");
    assert_eq!(h["reason"], "not_checkable", "{h}");
    assert_eq!(h["cause"], "attestation:engine-0", "{h}");
}

/// Time order inside a client record is a record rule: a first token
/// before the send makes the records malformed, and what reads them not
/// checkable under `point:<p>.records`.
#[test]
fn a_record_out_of_time_order_is_malformed() {
    let c = fresh();
    c.edit_lines("benchmark/rate-1/client.jsonl", |l| {
        let mut r: serde_json::Value = serde_json::from_str(&l[3]).unwrap();
        r["first_token_at"] = serde_json::json!(r["sent_at"].as_f64().unwrap() - 1.0);
        l[3] = r.to_string();
    });
    let o = sealed(&c);
    o.assert_fails("point:rate-1.records", "times out of order");
    o.assert_fails("point:rate-1.records", "benchmark/rate-1/client.jsonl:4");
    assert_eq!(
        o.check("point:rate-1.claim.ttft_s.p50")["reason"],
        "not_checkable"
    );
}

/// A point whose `source.file` names its own records file: the
/// qualification is malformed (`qualification.schema`, exit 1).
#[test]
fn a_source_naming_the_records_file_fails_the_schema() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["source"] = serde_json::json!({
            "file": "benchmark/rate-0.5/client.jsonl", "format": "vllm",
            "rules": "proofpack/derive/v1", "request_id_prefix": "rate-0.5-",
            "utc_offset": "+00:00", "anchor_adjust_s": 0.0,
            "plan_sha256": "00".repeat(32)
        });
    });
    let o = sealed(&c);
    o.assert_fails(
        "qualification.schema",
        "point \\\"rate-0.5\\\": the source file is the client records file",
    );
}

/// A failed warmup: the result cells count measured requests only and
/// still hold; the warmup sentence ("one completed warmup request per
/// point") fails on it.
#[test]
fn a_failed_warmup_fails_the_warmup_sentence_not_the_result() {
    let c = fresh();
    let mut id = String::new();
    c.edit_lines("benchmark/rate-1/client.jsonl", |l| {
        let mut r: serde_json::Value = serde_json::from_str(&l[0]).unwrap();
        assert_eq!(r["warmup"], true);
        id = r["request_id"].as_str().unwrap().to_string();
        r["status"] = serde_json::json!("error");
        r["first_token_at"] = serde_json::Value::Null;
        r["finished_at"] = serde_json::Value::Null;
        r["output_tokens"] = serde_json::json!(0);
        l[0] = r.to_string();
    });
    c.edit_lines(J, |l| {
        l.retain(|e| !(e.contains(&format!("\"{id}\"")) && e.contains("\"first_token\"")));
        for e in l.iter_mut() {
            if e.contains(&format!("\"{id}\"")) && e.contains("\"terminal\"") {
                *e = e.replace("\"status\":\"ok\"", "\"status\":\"error\"");
            }
        }
    });
    let o = sealed(&c);
    o.assert_fails(
        "publication:statement:26.2",
        "point rate-1 declares 1 warmup(s)",
    );
    assert_eq!(o.check("publication:point:1.result")["ok"], true);
    assert_eq!(o.check("publication:statement:26.1")["ok"], true);
}
