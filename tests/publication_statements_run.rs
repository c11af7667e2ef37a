//! The statements about how the run was made (contract section 9.6, v1.1,
//! issue 22), through the binary: the sample's honest sentences pass (see
//! publication_statements.rs); each forged case here is a hostile
//! publisher's edit of the write-up or of the run, and names the check
//! that catches it. Then the publisher's own bindings: a bound statement
//! is checked, labelled as the publisher's, counted apart and failed under
//! `--require-all`; a binding whose text is absent or occurs twice cannot
//! run (exit 2).

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use publication_support::*;
use serde_json::{json, Value};

const MANIFESTS: &str = "publication:statement:20.2";
const PROFILES: &str = "publication:statement:20.3";
const PROBES: &str = "publication:statement:22.1";
const PROBE_RANGE: &str = "publication:statement:22.2";
const DERIVED: &str = "publication:statement:22.3";
const PLAN_LINKS: &str = "publication:statement:24.2";
const CLIENT_OPTIONS: &str = "publication:statement:24.3";
const COVERAGE: &str = "publication:statement:28.1";
const DIAGNOSTIC: &str = "publication:statement:28.2";
const COLLECTOR: &str = "publication:statement:28.3";
const POST_LOAD: &str = "publication:statement:28.4";
const INVENTORY: &str = "publication:statement:35.2";

#[test]
fn a_deadline_not_above_the_probes_maximum_fails() {
    let mut p = published();
    p.c.edit_json("probes/probes.json", |v| {
        v["probes"][3]["first_token_s"] = json!(8.7);
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_fails(
        DERIVED,
        "is not above the probes' greatest first-token latency, 8.7 s",
    );
    o.assert_fails(PROBE_RANGE, "range from 0.401 to 8.7 s");
}

#[test]
fn a_margin_stated_as_one_point_six_seconds_fails() {
    let p = published();
    p.edit("leaving about 0.62 s", "leaving about 1.62 s");
    p.verify(&[]).assert_fails(DERIVED, "leaves 0.618000 s");
    // Nor can the budget be another than the run's.
    let p = published();
    p.edit("of the 10 s TTFT budget", "of the 11 s TTFT budget");
    p.verify(&[])
        .assert_fails(DERIVED, "the run's TTFT budget is 10 s, not 11 s");
}

#[test]
fn a_probe_that_did_not_complete_fails_the_probes_sentence() {
    let mut p = published();
    p.c.edit_json("probes/probes.json", |v| {
        v["probes"][5]["status"] = json!("timeout");
        v["probes"][5]["first_token_s"] = Value::Null;
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(PROBES, "probes that did not complete");
}

#[test]
fn profile_values_other_than_the_samples_fail() {
    let p = published();
    p.edit(
        "prefill medians around 0.88 s",
        "prefill medians around 0.78 s",
    );
    p.verify(&[])
        .assert_fails(PROFILES, "prefill median 0.876000 s");
    let p = published();
    p.edit(
        "from 0.2391 to 0.2399 s/token",
        "from 0.2381 to 0.2399 s/token",
    );
    p.verify(&[])
        .assert_fails(PROFILES, "the decode intercepts range from 0.239100");
    // A sample changed in the run moves the recomputed median.
    let mut p = published();
    p.c.edit_json("profiles/engine-3.json", |v| {
        for s in v["prefill"].as_array_mut().unwrap() {
            s["seconds"] = json!(0.95);
        }
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(PROFILES, "prefill median 0.950000 s");
}

#[test]
fn a_full_manifest_of_other_shard_hashes_fails() {
    let mut p = published();
    let rel = "manifests/hosts/mi355x-node-03.qual.example.manifest.json";
    p.c.edit_json(rel, |v| {
        v["entries"][7]["sha256"] = json!("0".repeat(64));
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        MANIFESTS,
        "these do not agree: manifests/hosts/mi355x-node-03",
    );
}

#[test]
fn a_gap_in_the_scrapes_fails_coverage_and_the_collector_sentence() {
    let mut p = published();
    p.c.edit_json("benchmark/rate-1/collector.json", |v| {
        let s = v["samples"].as_array_mut().unwrap();
        // Twelve scrapes (three counters each) gone from the middle.
        let mid = s.len() / 2;
        s.drain(mid..mid + 36);
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_fails(COVERAGE, "point rate-1: a gap of");
    o.assert_fails(COLLECTOR, "a gap of");
}

#[test]
fn a_journal_outcome_that_differs_from_the_clients_fails_the_counts() {
    let mut p = published();
    p.c.edit_lines("router-journal.jsonl", |lines| {
        for l in lines.iter_mut() {
            if l.contains("\"rate-1-000041\"") && l.contains("\"terminal\"") {
                *l = l.replace("\"status\":\"error\"", "\"status\":\"ok\"");
            }
        }
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(COVERAGE, "point rate-1: client outcomes");
}

#[test]
fn diagnostics_are_recomputed_from_the_samples() {
    // Two counter_missing diagnostics stated where the samples give one.
    let p = published();
    p.edit(
        "records one counter_missing diagnostic",
        "records two counter_missing diagnostics",
    );
    p.verify(&[])
        .assert_fails(DIAGNOSTIC, "counters without a sample in the window");
    // The higher-rate point stated clean while its collector lost a
    // counter.
    let mut p = published();
    p.c.edit_json("benchmark/rate-1/collector.json", |v| {
        v["samples"]
            .as_array_mut()
            .unwrap()
            .retain(|s| s["metric"] != "router_kv_handoffs_total");
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        COLLECTOR,
        "counters without a sample: router_kv_handoffs_total",
    );
    // A kind proofpack does not compute is not taken on trust.
    let p = published();
    p.edit(
        "one counter_missing diagnostic",
        "one scrape_late diagnostic",
    );
    p.verify(&[])
        .assert_fails(DIAGNOSTIC, "is not a diagnostic proofpack computes");
}

#[test]
fn a_post_load_check_before_the_drain_or_with_a_failure_fails() {
    let mut p = published();
    p.c.edit_json("post-load.json", |v| {
        v["checked_at"] = json!("2026-09-23T08:00:00Z");
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(POST_LOAD, "is not after point #2's last answer");
    let mut p = published();
    p.c.edit_json("post-load.json", |v| {
        v["checks"][1]["ok"] = json!(false);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(POST_LOAD, "checks that did not pass: no-leaked-blocks");
    let p = published();
    p.edit("after the second drain", "after the third drain");
    p.verify(&[]).assert_fails(POST_LOAD, "so no drain #3");
}

#[test]
fn client_options_and_the_plans_links_are_the_plans() {
    let p = published();
    p.edit("--timeout 600", "--timeout 180");
    p.verify(&[]).assert_fails(
        CLIENT_OPTIONS,
        "records the client options --ttft 10 --tpot 0.3 --attainment 0.95 --timeout 600",
    );
    // The plan links to another fleet than the run's qualified one.
    let mut p = published();
    p.c.edit_json("inputs/benchmark-plan.json", |v| {
        v["fleet"] = json!("inputs/fleet-packaged.json");
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        PLAN_LINKS,
        "names the fleet inputs/fleet-packaged.json; the run's qualified fleet is inputs/fleet-qualified.json",
    );
}

#[test]
fn a_role_named_with_no_file_fails_the_inventory() {
    // A role the map does not have.
    let p = published();
    p.edit(
        "the post-load check and",
        "the post-load check, the tokenizer and",
    );
    let o = p.verify(&[]);
    o.assert_fails(INVENTORY, "roles map has no role");
    o.assert_fails(INVENTORY, "tokenizer");
    // A role whose globs match no file of the run.
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["roles"]["collector reports"] = json!(["collectors/*.json"]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(INVENTORY, "no file of the run is of role");
    // A known role's globs that leave out a file qualification.json names.
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["roles"]["client records"] = json!(["benchmark/rate-0.5/client.jsonl"]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(INVENTORY, "leaves out benchmark/rate-1/client.jsonl");
}

/// The sample with one more sentence no form reads, bound by the
/// publisher to the probes report.
fn bound(text: &str, binding: Value) -> Pub {
    let mut p = published();
    p.edit("Measured points¶", &format!("{text}\n\nMeasured points¶"));
    p.c.edit_json("qualification.json", |q| {
        q["statements"] = json!([binding]);
    });
    p.reseal();
    p
}

#[test]
fn a_publisher_bound_statement_is_checked_labelled_and_counted_apart() {
    let sentence = "The probe window was 20 s wide.";
    let binding = json!({"text": sentence, "check": "equals", "file": "probes/probes.json", "pointer": "/window_s", "value": 20});
    let p = bound(sentence, binding.clone());
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check("publication:statement:25");
    assert_eq!(c["ok"], json!(true), "{c}");
    assert_eq!(c["source"], "publisher", "{c}");
    assert_eq!(c["stated_in"]["file"], "probes/probes.json", "{c}");
    assert_eq!(c["stated_in"]["pointer"], "/window_s", "{c}");
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains("1 row(s) backed only by files the publisher wrote for them: statement:25")
            && v.contains("(20 of 21 statement(s) of the prose checked, 1 bound by the publisher, 0 not checked)")
            && !v.contains("mapped to evidence"),
        "{v}"
    );
    p.verify(&[os("--require-all")]).assert_fails(
        "publication:statement:25",
        "holds only by the publisher's binding",
    );
    // The file says otherwise.
    let forged = json!({"text": "The probe window was 30 s wide.", "check": "equals", "file": "probes/probes.json", "pointer": "/window_s", "value": 30});
    bound("The probe window was 30 s wide.", forged)
        .verify(&[])
        .assert_fails(
            "publication:statement:25",
            "probes/probes.json/window_s is 20.0",
        );
    // The binding compares a value the sentence does not state.
    let mismatched = json!({"text": "The probe window was 30 s wide.", "check": "equals", "file": "probes/probes.json", "pointer": "/window_s", "value": 20});
    bound("The probe window was 30 s wide.", mismatched)
        .verify(&[])
        .assert_fails(
            "publication:statement:25",
            "the sentence does not state the value 20",
        );
    // Every other check of the closed set, honest.
    for (text, b) in [
        (
            "The prompt token ids spanned 1000 to 1247.",
            json!({"check": "range", "file": "inputs/workload.json", "pointer": "/token_pool", "min": "1000", "max": "1247"}),
        ),
        (
            "Twelve probes ran.",
            json!({"check": "count", "file": "probes/probes.json", "pointer": "/probes", "value": 12}),
        ),
        (
            "The post-load checks all passed.",
            json!({"check": "all-passed", "file": "post-load.json", "pointer": "/checks"}),
        ),
        (
            "The qualified copy differs in one key, first_token_deadline_s.",
            json!({"check": "json-diff-only", "file": "inputs/fleet-qualified.json", "against": "inputs/fleet-packaged.json", "paths": ["first_token_deadline_s"]}),
        ),
    ] {
        let mut b = b;
        b["text"] = json!(text);
        let o = bound(text, b).verify(&[]);
        let c = o.check("publication:statement:25");
        assert_eq!(c["ok"], json!(true), "{text}: {c}");
    }
}

#[test]
fn a_binding_whose_text_is_absent_or_repeated_cannot_run() {
    let absent = json!({"text": "A sentence the write-up does not hold, 3 times.", "check": "present", "file": "post-load.json"});
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["statements"] = json!([absent]);
    });
    p.reseal();
    let e = p.refused();
    assert!(
        e.contains("statements[0]") && e.contains("the text is not in the write-up"),
        "{e}"
    );
    let twice = json!({"text": "within limits", "check": "present", "file": "post-load.json"});
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["statements"] = json!([twice]);
    });
    p.reseal();
    let e = p.refused();
    assert!(
        e.contains("statements[0]") && e.contains("occurs more than once in the write-up"),
        "{e}"
    );
    // A binding with an argument its check does not take is not a valid
    // qualification.
    let extra = json!({"text": "Both intervals", "check": "present", "file": "post-load.json", "pointer": "/x"});
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["statements"] = json!([extra]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails("qualification.schema", "check present takes no pointer");
}

#[test]
fn a_sentence_a_form_half_matches_is_not_read_and_nothing_crashes() {
    // The post-load form without a name: once a panic of the reader.
    let p = published();
    p.edit(
        "Measured points¶",
        "A post-load check passed after the second drain.\n\nMeasured points¶",
    );
    let o = p.verify(&[]);
    o.assert_ok();
    assert_eq!(o.check("publication:statement:25")["reason"], "not_read");
}

/// A measured number of the prose follows the rule of the cells: "from 0
/// to 0 s/token" over intercepts of 0.2391-0.2399, or "from 0 to 5 s" over
/// probes of 0.401-5.102 s, round to what they state but are too coarse to
/// check; "around" and "about" allow one digit fewer.
#[test]
fn prose_numbers_too_coarse_to_check_fail() {
    let p = published();
    p.edit("from 0.2391 to 0.2399 s/token", "from 0 to 0 s/token");
    p.verify(&[]).assert_fails(
        PROFILES,
        "0 has 0 significant digit(s), too coarse to check",
    );
    let p = published();
    p.edit("ranged from 0.401 to 5.102 s", "ranged from 0 to 5 s");
    p.verify(&[]).assert_fails(
        PROBE_RANGE,
        "5 has 1 significant digit(s), too coarse to check: a measured number of the prose needs at least 3",
    );
    let p = published();
    p.edit("leaving about 0.62 s", "leaving about 0.6 s");
    p.verify(&[]).assert_fails(
        DERIVED,
        "0.6 has 1 significant digit(s), too coarse to check: a measured number of the prose needs at least 2 after",
    );
}

/// Agreement of a record with itself is no agreement: a plan that names
/// the run's own weights record (twice) as its earlier full manifests
/// fails the sentence.
#[test]
fn the_weights_record_named_as_its_own_witness_fails() {
    let mut p = published();
    p.c.edit_json("inputs/benchmark-plan.json", |v| {
        v["full_manifests"] = json!([
            "manifests/weights.manifest.json",
            "manifests/weights.manifest.json"
        ]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(MANIFESTS, "a record agrees with itself");
    // One host's manifest named twice is one manifest.
    let mut p = published();
    p.c.edit_json("inputs/benchmark-plan.json", |v| {
        let one = "manifests/hosts/mi355x-node-01.qual.example.manifest.json";
        v["full_manifests"] = json!([one, one]);
    });
    p.reseal();
    p.verify(&[])
        .assert_fails(MANIFESTS, "1 distinct full manifest(s)");
}

/// "Complete scrape coverage" rests on the interval the scrapes show, not
/// the one the collector declares: one scrape per point under a declared
/// 500 s interval, or scrapes 100 s apart declared as 5 s, fail.
#[test]
fn coverage_rests_on_the_scrapes_own_interval() {
    let mut p = published();
    p.c.edit_json("benchmark/rate-1/collector.json", |v| {
        v["scrape_interval_s"] = json!(500.0);
        let s = v["samples"].as_array_mut().unwrap();
        let mid = s[s.len() / 2]["t"].clone();
        s.retain(|x| x["t"] == mid);
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_fails(COVERAGE, "1 distinct scrape time(s)");
    o.assert_fails(COLLECTOR, "1 distinct scrape time(s)");
    let mut p = published();
    p.c.edit_json("benchmark/rate-1/collector.json", |v| {
        let s = v["samples"].as_array_mut().unwrap();
        // Every twentieth scrape kept: 100 s apart, still declared 5 s.
        let t0 = s[0]["t"].as_f64().unwrap();
        s.retain(|x| ((x["t"].as_f64().unwrap() - t0) as i64) % 100 == 0);
    });
    p.reseal();
    p.verify(&[]).assert_fails(
        COVERAGE,
        "scrape_interval_s declares 5 s, but the scrapes are a median 100 s apart",
    );
}

/// A binding of a fragment checks only the fragment: the sentence's false
/// half is not checked, so the sentence is not "held" (and fails under
/// --require-all).
#[test]
fn a_binding_of_a_fragment_leaves_the_rest_of_the_sentence_not_checked() {
    let sentence = "The probe window was 20 s wide, and every engine stayed under 60 C.";
    let binding = json!({"text": "The probe window was 20 s wide", "check": "equals", "file": "probes/probes.json", "pointer": "/window_s", "value": 20});
    let p = bound(sentence, binding);
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check("publication:statement:25");
    assert_eq!(c["ok"], Value::Null, "{c}");
    assert_eq!(c["reason"], "not_read", "{c}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("the publisher's binding covers only \"The probe window was 20 s wide\""),
        "{c}"
    );
    p.verify(&[os("--require-all")])
        .assert_fails("publication:statement:25", "the rest of it is not checked");
}

/// The page marks a statement held only by the publisher's binding apart
/// from one held by evidence: never the green "held".
#[test]
fn the_page_marks_a_publisher_bound_statement_apart_from_evidence() {
    let sentence = "The probe window was 20 s wide.";
    let binding = json!({"text": sentence, "check": "equals", "file": "probes/probes.json", "pointer": "/window_s", "value": 20});
    let p = bound(sentence, binding);
    let page = p.c.dir.path().join("page.html");
    let o = p.verify(&[os("--html"), page.as_os_str()]);
    o.assert_ok();
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("data-statement=\"publication:statement:25\"")
        .expect("the bound statement is marked");
    let span = &html[html[..at].rfind("<span").unwrap()..at];
    assert!(span.contains("claim publisher"), "{span}");
    assert!(!span.contains("claim pass"), "{span}");
    let held = html
        .find("data-statement=\"publication:statement:22.1\"")
        .unwrap();
    assert!(html[html[..held].rfind("<span").unwrap()..held].contains("claim pass"));
}

/// The page's legend says every statement and value proofpack checks is
/// marked: on the sample's page, every sentence of the prose is inside a
/// marked statement, except the tables' section titles (no statement by the
/// contract's list).
#[test]
fn the_page_leaves_no_prose_sentence_unmarked() {
    let p = published();
    let page = p.c.dir.path().join("page.html");
    p.verify(&[os("--html"), page.as_os_str()]).assert_ok();
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html
        .find("<div class=\"writeup\">")
        .expect("the write-up section");
    let section = &html[start..];
    let section = &section[..section.find("</section>").unwrap_or(section.len())];
    // Take the marked statements out; what prose is left must be only the
    // section titles (table cells are checked as cells, not sentences).
    let mut kept = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let b = section.as_bytes();
    while i < b.len() {
        if b[i..].starts_with(b"<span class=\"claim") {
            depth += 1;
        } else if depth > 0 && b[i..].starts_with(b"</span>") {
            depth -= 1;
            i += "</span>".len();
            continue;
        }
        if depth == 0 {
            kept.push(b[i]);
        }
        i += 1;
    }
    let rest = String::from_utf8_lossy(&kept).into_owned();
    let without_tables: String = rest
        .split("<table")
        .enumerate()
        .map(|(k, part)| {
            if k == 0 {
                part
            } else {
                part.split_once("</table>").map_or("", |x| x.1)
            }
        })
        .collect();
    let text: String = {
        let mut out = String::new();
        let mut tag = false;
        for c in without_tables.chars() {
            match c {
                '<' => tag = true,
                '>' => {
                    tag = false;
                    out.push(' ');
                }
                c if !tag => out.push(c),
                _ => {}
            }
        }
        out
    };
    // Clause separators ("; ") stand between marked clauses.
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    assert_eq!(words, ["Pinned", "inputs", "Measured", "points"], "{text}");
}
