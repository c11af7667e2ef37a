//! `proofpack verify` end to end on variants of the sample qualification.
//!
//! Each case builds a fresh sample with the deterministic generator, breaks
//! exactly one thing (re-signing or re-sealing where the case needs it), runs
//! the built binary and asserts both the exit status and the failing check id.

mod qualify_support;

use base64::Engine as _;
use proofpack::digest::Sha256Digest;
use qualify_support::*;
use serde_json::Value;

// ---------------------------------------------------------------- passes

#[test]
fn sample_bundle_verifies_with_pins_and_trust() {
    let c = fresh();
    let o = c.verify_sealed();
    o.assert_ok();
    assert!(o.report["summary"]["passed"].as_u64().unwrap() > 60);
    assert_eq!(o.check("pin:bundle")["ok"], Value::Bool(true));
    assert_eq!(o.check("seal")["ok"], Value::Bool(true));
    assert_eq!(o.check("bundle.stable")["ok"], Value::Bool(true));
    let verdict = o.report["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("VERIFIED: ")
            && verdict.contains("18 published claims compared, none left out"),
        "{verdict}"
    );
    assert_eq!(
        o.check("point:rate-1.within_limits")["ok"],
        Value::Bool(true)
    );
}

#[test]
fn run_directory_instead_of_a_bundle_passes() {
    let c = fresh();
    let pins = c.pins(None, |_| {});
    let o = verify(&c.run(), Some(&pins), Some(&c.trust()));
    o.assert_ok();
    assert_eq!(o.check("bundle")["ok"], Value::Null);
}

#[test]
fn bundle_pin_fails_for_a_run_directory() {
    let c = fresh();
    let pins = c.pins(Some(Sha256Digest([7; 32])), |_| {});
    verify(&c.run(), Some(&pins), Some(&c.trust())).assert_fails("pin:bundle", "run directory");
}

#[test]
fn claims_rounded_to_three_significant_digits_pass() {
    let c = fresh();
    // Publish with fewer digits, but still 3 significant ones: each claim
    // holds only within its rounding.
    let q: Value =
        serde_json::from_slice(&std::fs::read(c.path("qualification.json")).unwrap()).unwrap();
    let claims = q["points"][0]["claims"].clone();
    let reround = |s: &Value, d: usize| {
        let v: f64 = s.as_str().unwrap().parse().unwrap();
        Value::String(format!("{v:.d$}"))
    };
    c.edit_json("qualification.json", |q| {
        let cl = &mut q["points"][0]["claims"];
        for k in ["p50", "p95", "p99"] {
            cl["ttft_s"][k] = reround(&claims["ttft_s"][k], 2);
            cl["tpot_ms"][k] = reround(&claims["tpot_ms"][k], 0);
        }
    });
    let o = c.verify_sealed();
    o.assert_ok();
    let detail = o.check("point:rate-0.5.claim.ttft_s.p50")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(detail.contains("rounds to"), "{detail}");
}

#[test]
fn without_pins_the_verdict_is_unpinned_and_exit_0() {
    let c = fresh();
    c.seal();
    let o = verify(&c.bundle_path(), None, Some(&c.trust()));
    o.assert_ok();
    assert_eq!(o.check("pin:*")["ok"], Value::Null);
    let mut cmd = qualify_support::common::proofpack();
    let out = cmd
        .args(["--no-catalog", "verify"])
        .arg(c.bundle_path())
        .arg("--trust")
        .arg(c.trust())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("VERIFIED (unpinned)"), "{text}");
    assert!(text.contains("200/200 within limits"), "{text}");
}

/// `--table markdown` prints the measured-points table `publish` writes
/// (one renderer), the sealed claims as written where they hold: pasted
/// under "Measured points" in place of the write-up's own table, every
/// cell of it verifies against the same bundle.
#[test]
fn markdown_table_pasted_into_the_write_up_verifies() {
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let out = qualify_support::common::proofpack()
        .args(["--no-catalog", "verify"])
        .arg(c.bundle_path())
        .arg("--pins")
        .arg(&pins)
        .arg("--trust")
        .arg(c.trust())
        .args(["--table", "markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\nVERIFIED: "), "{text}");
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("| Offered rate |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(table.len(), 4, "{text}");
    assert!(
        table[3].contains("197/200 within limits, 2 failed, 1 timed out"),
        "{}",
        table[3]
    );
    // The sample's write-up with its measured-points table replaced.
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample/PUBLICATION.md");
    let original = std::fs::read_to_string(sample).unwrap();
    let mut lines: Vec<&str> = original.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("| Offered rate |"))
        .unwrap();
    let end = start
        + lines[start..]
            .iter()
            .take_while(|l| l.starts_with('|'))
            .count();
    lines.splice(start..end, table.iter().copied());
    let writeup = c.dir.path().join("PUBLICATION.md");
    std::fs::write(&writeup, lines.join("\n") + "\n").unwrap();
    let o = qualify_support::verify_with(
        &c.bundle_path(),
        &[
            "--pins".as_ref(),
            pins.as_os_str(),
            "--trust".as_ref(),
            c.trust().as_os_str(),
            "--publication".as_ref(),
            writeup.as_os_str(),
        ],
    );
    let cells: Vec<&Value> = o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["id"].as_str().unwrap().starts_with("publication:point"))
        .collect();
    assert!(cells.len() > 30, "{}", o.stdout);
    for k in cells {
        assert_eq!(k["ok"], true, "{k}");
    }
}

// ---------------------------------------------------------------- tool errors

#[test]
fn invalid_pins_file_is_exit_2() {
    let c = fresh();
    c.seal();
    let p = c.dir.path().join("bad-pins.json");
    std::fs::write(&p, br#"{"schema":"proofpack/pins/v1","pins":[],"extra":1}"#).unwrap();
    let o = verify(&c.bundle_path(), Some(&p), Some(&c.trust()));
    assert_eq!(o.code, 2, "{}", o.stdout);
}

#[test]
fn unreadable_trust_file_is_exit_2() {
    let c = fresh();
    c.seal();
    let o = verify(
        &c.bundle_path(),
        None,
        Some(&c.dir.path().join("missing-trust.json")),
    );
    assert_eq!(o.code, 2, "{}", o.stdout);
}

// ---------------------------------------------------------------- bundle tampering

#[test]
fn byte_changed_in_a_record_after_sealing() {
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    rewrite_bundle(&c.bundle_path(), |entries| {
        let e = entries
            .iter_mut()
            .find(|(p, _)| *p == root_rel("benchmark/rate-0.5/client.jsonl"))
            .unwrap();
        let i =
            e.1.windows(15)
                .position(|w| w == b"\"output_tokens\"")
                .unwrap();
        e.1[i + 16] = if e.1[i + 16] == b'9' { b'8' } else { b'9' };
    });
    let o = verify(&c.bundle_path(), Some(&pins), Some(&c.trust()));
    o.assert_fails("bundle.entry:benchmark/rate-0.5/client.jsonl", "");
    o.assert_fails("pin:bundle", "");
}

#[test]
fn file_added_after_sealing() {
    let c = fresh();
    c.seal();
    rewrite_bundle(&c.bundle_path(), |entries| {
        entries.push((root_rel("benchmark/rate-0.5/extra.jsonl"), b"{}\n".to_vec()));
    });
    let o = verify(&c.bundle_path(), None, Some(&c.trust()));
    assert_eq!(o.code, 1);
    assert!(
        o.failed()
            .iter()
            .any(|id| id.starts_with("bundle") && id.contains("benchmark/rate-0.5/extra.jsonl")),
        "{:?}",
        o.failed()
    );
}

#[test]
fn file_removed_after_sealing() {
    let c = fresh();
    c.seal();
    rewrite_bundle(&c.bundle_path(), |entries| {
        entries.retain(|(p, _)| *p != root_rel("preflight.json"));
    });
    let o = verify(&c.bundle_path(), None, Some(&c.trust()));
    assert_eq!(o.code, 1);
    assert!(
        o.failed()
            .iter()
            .any(|id| id.starts_with("bundle") && id.contains("preflight.json")),
        "{:?}",
        o.failed()
    );
}

// ---------------------------------------------------------------- pins

fn wrong_pin(name: &str) {
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |v| {
        let pin = v["pins"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|p| p["name"] == name)
            .unwrap();
        let mut hex = pin["sha256"].as_str().unwrap().to_string();
        let flipped = if hex.starts_with('0') { "1" } else { "0" };
        hex.replace_range(0..1, flipped);
        pin["sha256"] = Value::String(hex);
    });
    verify(&c.bundle_path(), Some(&pins), Some(&c.trust()))
        .assert_fails(&format!("pin:{name}"), "");
}

#[test]
fn wrong_pin_bundle() {
    wrong_pin("bundle");
}
#[test]
fn wrong_pin_weights_manifest() {
    wrong_pin("weights.manifest");
}
#[test]
fn wrong_pin_config_json() {
    wrong_pin("config.json");
}
#[test]
fn wrong_pin_qualified_fleet() {
    wrong_pin("qualified-fleet");
}
#[test]
fn wrong_pin_engine_image() {
    wrong_pin("engine-image");
}

#[test]
fn wrong_pin_shard_count() {
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |v| {
        v["pins"][1]["files"] = Value::from(95);
    });
    verify(&c.bundle_path(), Some(&pins), Some(&c.trust()))
        .assert_fails("pin:weights.manifest", "96");
}

#[test]
fn pin_that_applies_to_nothing_fails() {
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |v| {
        v["pins"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"name": "tokenizer.json", "sha256": "ab".repeat(32)}));
    });
    verify(&c.bundle_path(), Some(&pins), Some(&c.trust()))
        .assert_fails("pin:tokenizer.json", "applies to nothing");
}

// ---------------------------------------------------------------- attestations

#[test]
fn attestation_by_an_untrusted_key() {
    let c = fresh();
    resign(&c, 1, &gen::test_key("someone else"), |_| {});
    c.verify_sealed().assert_fails("attestation:engine-1", "");
}

#[test]
fn attestation_by_a_trusted_key_of_the_wrong_role() {
    let c = fresh();
    resign(&c, 1, &gen::release_key(), |_| {});
    c.verify_sealed().assert_fails("attestation:engine-1", "");
}

#[test]
fn attestation_naming_other_weights() {
    let c = fresh();
    resign(&c, 2, &gen::engine_key(), |st| {
        st["subject"][0]["digest"]["sha256"] = Value::String("ee".repeat(32));
    });
    let o = c.verify_sealed();
    o.assert_fails("pin:weights.manifest", "engine-2");
    o.assert_fails("attestations.agree", "engine-2");
}

#[test]
fn engines_attesting_different_weights_fail_even_unpinned() {
    let c = fresh();
    resign(&c, 3, &gen::engine_key(), |st| {
        st["subject"][0]["digest"]["sha256"] = Value::String("ee".repeat(32));
    });
    let o = verify(&c.run(), None, Some(&c.trust()));
    o.assert_fails("attestations.agree", "weights.manifest");
}

#[test]
fn attestation_with_an_edited_payload() {
    let c = fresh();
    let p = c.path("attestations/engine-2.dsse.json");
    let mut env: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let payload = String::from_utf8(b64.decode(env["payload"].as_str().unwrap()).unwrap()).unwrap();
    let edited = payload.replace("mi355x-node-03", "mi355x-node-09");
    assert_ne!(payload, edited);
    env["payload"] = Value::String(b64.encode(edited));
    std::fs::write(&p, serde_json::to_vec_pretty(&env).unwrap()).unwrap();
    c.verify_sealed().assert_fails("attestation:engine-2", "");
}

#[test]
fn attestation_missing() {
    let c = fresh();
    std::fs::remove_file(c.path("attestations/engine-3.dsse.json")).unwrap();
    c.verify_sealed()
        .assert_fails("attestation:engine-3", "attestations/engine-3.dsse.json");
}

#[test]
fn attestation_for_another_engine_id() {
    let c = fresh();
    resign(&c, 0, &gen::engine_key(), |st| {
        st["predicate"]["engine"]["id"] = Value::String("engine-7".into());
    });
    c.verify_sealed()
        .assert_fails("attestation:engine-0.engine_id", "engine-7");
}

#[test]
fn without_trust_verify_cannot_run() {
    // v1.1 (contract 7): no trust roots, no verification: exit 2 before
    // anything is read, never a report (v1 exited 1 with the attestations
    // failed).
    let c = fresh();
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let o = verify(&c.bundle_path(), Some(&pins), None);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert_eq!(o.report, Value::Null, "nothing was verified");
    assert!(o.stdout.contains("verify needs --trust"), "{}", o.stdout);
}

// ---------------------------------------------------------------- invariants

#[test]
fn journal_missing_one_terminal_event() {
    let c = fresh();
    c.edit_lines(J, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000010\"") && x.contains("\"terminal\""))
            .unwrap();
        l.remove(i);
    });
    c.verify_sealed()
        .assert_fails("point:rate-0.5.journal.terminal", "rate-0.5-000010");
}

#[test]
fn journal_with_a_duplicate_terminal_event() {
    let c = fresh();
    c.edit_lines(J, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000042\"") && x.contains("\"terminal\""))
            .unwrap();
        let dup = l[i].clone();
        l.insert(i + 1, dup);
    });
    c.verify_sealed()
        .assert_fails("point:rate-0.5.journal.terminal", "rate-0.5-000042");
}

#[test]
fn journal_terminal_status_disagrees() {
    let c = fresh();
    c.edit_lines(J, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000005\"") && x.contains("\"terminal\""))
            .unwrap();
        l[i] = l[i].replace("\"status\":\"ok\"", "\"status\":\"error\"");
    });
    c.verify_sealed()
        .assert_fails("point:rate-0.5.status", "rate-0.5-000005");
}

#[test]
fn client_record_missing() {
    let c = fresh();
    c.edit_lines(C05, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000077\""))
            .unwrap();
        l.remove(i);
    });
    let o = c.verify_sealed();
    o.assert_fails("point:rate-0.5.count", "201");
    o.assert_fails("point:rate-0.5.journal.orphans", "rate-0.5-000077");
}

#[test]
fn duplicate_request_id() {
    let c = fresh();
    c.edit_lines(C05, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000031\""))
            .unwrap();
        l[i] = l[i].replace("rate-0.5-000031", "rate-0.5-000030");
    });
    c.verify_sealed()
        .assert_fails("point:rate-0.5.unique_ids", "rate-0.5-000030");
}

#[test]
fn warmup_count_off() {
    let c = fresh();
    c.edit_lines(C05, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000000\""))
            .unwrap();
        l[i] = l[i].replace("\"warmup\":false", "\"warmup\":true");
    });
    c.verify_sealed()
        .assert_fails("point:rate-0.5.warmup", "warmup");
}

#[test]
fn malformed_record_names_file_and_line() {
    let c = fresh();
    c.edit_lines(C05, |l| {
        l[5] = l[5].replace("\"status\":\"ok\"", "\"status\":\"OK\"");
    });
    c.verify_sealed().assert_fails(
        "point:rate-0.5.records",
        "benchmark/rate-0.5/client.jsonl:6",
    );
}

#[test]
fn record_with_a_repeated_key_is_refused() {
    // Records are strict JSON: two values for one key (even one proofpack
    // does not read) could be read differently by another verifier.
    let c = fresh();
    c.edit_lines(C05, |l| {
        l[7] = l[7].replacen('{', "{\"note\":\"a\",\"note\":\"b\",", 1);
    });
    c.verify_sealed().assert_fails(
        "point:rate-0.5.records",
        "benchmark/rate-0.5/client.jsonl:8",
    );
}

#[test]
fn slo_breach_hidden_behind_a_claim_of_200_of_200() {
    let c = fresh();
    // One request's first token arrives 11 s after sending (SLO 10 s);
    // qualification.json still claims 200 within limits.
    c.edit_lines(C05, |l| {
        let i = l
            .iter()
            .position(|x| x.contains("\"rate-0.5-000100\""))
            .unwrap();
        let mut r: Value = serde_json::from_str(&l[i]).unwrap();
        let sent = r["sent_at"].as_f64().unwrap();
        let ft = r["first_token_at"].as_f64().unwrap();
        let fin = r["finished_at"].as_f64().unwrap();
        r["first_token_at"] = Value::from(sent + 11.0);
        r["finished_at"] = Value::from(fin + (sent + 11.0 - ft));
        l[i] = r.to_string();
    });
    let o = c.verify_sealed();
    o.assert_fails("point:rate-0.5.within_limits", "199");
    o.assert_fails("point:rate-0.5.within_limits", "rate-0.5-000100");
}

fn claim_off(key: &str) {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        let claims = &mut q["points"][0]["claims"];
        let slot = match key.split_once('.') {
            Some((g, k)) => &mut claims[g][k],
            None => &mut claims[key],
        };
        if let Some(n) = slot.as_u64() {
            *slot = Value::from(n - 1);
        } else {
            let s = slot.as_str().unwrap().to_string();
            let decimals = s.split_once('.').map_or(0, |(_, f)| f.len());
            let unit = 10f64.powi(-(decimals as i32));
            // Two units of the last digit off: beyond any rounding.
            let v: f64 = s.parse::<f64>().unwrap() + 2.0 * unit;
            *slot = Value::String(format!("{:.*}", decimals, v));
        }
    });
    let id = if key == "within_limits" {
        "point:rate-0.5.within_limits".to_string()
    } else {
        format!("point:rate-0.5.claim.{key}")
    };
    c.verify_sealed().assert_fails(&id, "");
}

#[test]
fn claim_off_completed_rate() {
    claim_off("completed_rate");
}
#[test]
fn claim_off_output_throughput() {
    claim_off("output_throughput");
}
#[test]
fn claim_off_ttft_p50() {
    claim_off("ttft_s.p50");
}
#[test]
fn claim_off_ttft_p95() {
    claim_off("ttft_s.p95");
}
#[test]
fn claim_off_ttft_p99() {
    claim_off("ttft_s.p99");
}
#[test]
fn claim_off_tpot_p50() {
    claim_off("tpot_ms.p50");
}
#[test]
fn claim_off_tpot_p95() {
    claim_off("tpot_ms.p95");
}
#[test]
fn claim_off_tpot_p99() {
    claim_off("tpot_ms.p99");
}
#[test]
fn claim_off_within_limits() {
    claim_off("within_limits");
}

#[test]
fn unknown_claim_key_is_a_schema_error() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["claims"]["ttft_s"]["p90"] = Value::String("6.0".into());
    });
    c.verify_sealed()
        .assert_fails("qualification.schema", "p90");
}

#[test]
fn left_out_claim_is_not_checked() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["claims"]
            .as_object_mut()
            .unwrap()
            .remove("output_throughput");
    });
    let o = c.verify_sealed();
    o.assert_ok();
    assert_eq!(
        o.check("point:rate-0.5.claim.output_throughput")["ok"],
        Value::Null
    );
}

#[test]
fn symlink_escaping_a_run_directory_is_refused() {
    let c = fresh();
    let outside = c.dir.path().join("outside.jsonl");
    std::fs::rename(c.path(C05), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, c.path(C05)).unwrap();
    let pins = c.pins(None, |_| {});
    let o = verify(&c.run(), Some(&pins), Some(&c.trust()));
    o.assert_fails("run.tree", "outside.jsonl");
    o.assert_fails("point:rate-0.5.records", "symlink");
}

/// 100,000 requests per point, streamed: verifies (time it with
/// scripts/bench-verify.sh; docs/performance.md has the numbers).
#[test]
fn hundred_thousand_requests_per_point_verify() {
    let c = fresh_with(&gen::Params {
        requests: 100_000,
        workload: false,
        ..Default::default()
    });
    let o = c.verify_sealed();
    o.assert_ok();
    assert_eq!(
        o.check("point:rate-1.count")["expected"],
        Value::from(100_001)
    );
}

/// A tar whose regular files carry the old typeflag NUL (as many writers
/// and `tar::Header::new_ustar` leave it) is read ahead in one pass, as
/// the verifying pass reads such entries: the read-ahead once turned it
/// away and reported the wrong reason ("qualification.json is not the
/// first entry after MANIFEST").
#[test]
fn old_style_regular_entries_are_read_ahead_in_one_pass() {
    let c = fresh();
    c.seal();
    rewrite_bundle(&c.bundle_path(), |_| {});
    let o = verify(&c.bundle_path(), None, Some(&c.trust()));
    let stable = o.check("bundle.stable");
    assert_eq!(stable["ok"], true, "{stable}");
    assert!(
        stable["detail"]
            .as_str()
            .unwrap()
            .contains("read in one pass (qualification.json right after MANIFEST)"),
        "{stable}"
    );
}
