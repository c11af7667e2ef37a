//! `verify --publication` and `pins from-publication` end to end (issue 11):
//! the sample verified against its own write-up with every row and cell
//! checked, then one published value changed per case, each failing with
//! the check of that row or cell named; malformed write-ups refused with the
//! line named (exit 2).

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::path::Path;

use publication_support::*;
use serde_json::{json, Value};

fn unmapped(o: &Outcome) -> Vec<String> {
    o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("publication:") && c["ok"].is_null())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn readme_main_command_checks_every_row_and_cell_of_the_sample_write_up() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let o = verify_with(
        &root.join("kimi-k3-mi355x-20260923-sample.tgz"),
        &[
            os("--publication"),
            root.join("PUBLICATION.md").as_os_str(),
            os("--trust"),
            root.join("trust.json").as_os_str(),
        ],
    );
    o.assert_ok();
    assert!(unmapped(&o).is_empty(), "unmapped: {:?}", unmapped(&o));
    let p = proofpack::publication::Publication::read(&root.join("PUBLICATION.md")).unwrap();
    // Every row and cell has a passing check of its own.
    for r in &p.pinned {
        let n = o.report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                let id = c["id"].as_str().unwrap();
                id == format!("publication:pin:{}", r.slug)
                    || id.starts_with(&format!("publication:pin:{}.", r.slug))
            })
            .filter(|c| c["ok"] == json!(true))
            .count();
        assert!(n > 0, "row {} has no passing check", r.label);
    }
    for row in &p.points {
        for cell in &row.cells {
            let id = format!("publication:point:{}.{}", row.offered.text, cell.key());
            assert_eq!(o.check(&id)["ok"], json!(true), "{id}");
        }
    }
    assert_eq!(o.check("publication:bundle")["ok"], json!(true));
    assert!(o.report["verdict"]
        .as_str()
        .unwrap()
        .contains("every row, cell and statement mapped to evidence"));
}

#[test]
fn changed_ttft_p95_cell() {
    let p = published();
    p.edit("5.187 / 6.569 / 7.179 s", "5.187 / 6.590 / 7.179 s");
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:0.5.ttft_s.p95",
        "column \\\"TTFT p50 / p95 / p99\\\"",
    );
    o.assert_fails("publication:point:0.5.ttft_s.p95", "PUBLICATION.md:32");
    o.assert_fails("publication:point:0.5.ttft_s.p95.sealed_claim", "6.590");
}

#[test]
fn changed_completed_rate() {
    let p = published();
    p.edit(
        "| 0.5 request/s | 0.433 request/s",
        "| 0.5 request/s | 0.443 request/s",
    );
    p.verify(&[]).assert_fails(
        "publication:point:0.5.completed_rate",
        "does not round to published 0.443",
    );
}

#[test]
fn result_199_of_200_within_limits() {
    let p = published();
    p.edit("200/200 within limits", "199/200 within limits");
    p.verify(&[]).assert_fails(
        "publication:point:0.5.result",
        "199 within limits, the records give 200",
    );
}

#[test]
fn changed_config_hash_row() {
    let p = published();
    p.edit(&p.c.sample.config.to_hex(), &"ab".repeat(32));
    p.verify(&[]).assert_fails(
        "publication:pin:model-config-sha-256",
        "engine-0 attests config.json",
    );
}

#[test]
fn wrong_shard_count() {
    let p = published();
    p.edit("96 safetensors shards", "95 safetensors shards");
    p.verify(&[]).assert_fails(
        "publication:pin:checkpoint-weights",
        "lists 96 safetensors shards, the publication says 95",
    );
}

#[test]
fn wrong_engine_version() {
    let p = published();
    p.edit("vLLM 0.11.2+rocm7.0", "vLLM 0.12.0+rocm7.0");
    p.verify(&[]).assert_fails(
        "publication:pin:engine.version",
        "engine-0 attests 0.11.2+rocm7.0",
    );
}

#[test]
fn seven_gpus() {
    let p = published();
    p.edit("eight GPUs", "seven GPUs");
    p.verify(&[])
        .assert_fails("publication:pin:accelerator-per-engine.count", "seven (7)");
}

#[test]
fn wrong_tensor_parallelism() {
    let p = published();
    p.edit("tensor parallelism 8", "tensor parallelism 4");
    p.verify(&[]).assert_fails(
        "publication:pin:accelerator-per-engine.tensor-parallelism",
        "engine-3 attests 8",
    );
}

#[test]
fn wrong_seed() {
    let p = published();
    p.edit("seed 1729", "seed 1730");
    p.verify(&[]).assert_fails(
        "publication:pin:workload.seed",
        "inputs/workload.json records the seed 1729",
    );
}

#[test]
fn ttft_budget_differs_from_slo() {
    let p = published();
    p.edit("10 s TTFT", "12 s TTFT");
    p.verify(&[]).assert_fails(
        "publication:pin:fleet-latency-budgets.ttft",
        "slo.ttft_s 10",
    );
}

#[test]
fn first_token_deadline_above_the_ttft_budget() {
    // The fleet file says so too: only the rule catches it.
    let mut p = published();
    p.c.edit_json("inputs/fleet-qualified.json", |f| {
        f["first_token_deadline_s"] = json!(10.5)
    });
    // The hosts' launch checks made again for this fleet file.
    p.c.rebind_hosts_to_fleet();
    p.reseal();
    let fleet = proofpack::digest::Sha256Digest::of_bytes(
        &std::fs::read(p.c.path("inputs/fleet-qualified.json")).unwrap(),
    );
    p.edit(&p.c.sample.fleet.to_hex(), &fleet.to_hex());
    p.edit("first-token deadline 8.5 s", "first-token deadline 10.5 s");
    p.edit(
        "first_token_deadline_s to 8.5 s",
        "first_token_deadline_s to 10.5 s",
    );
    // The prose's margin would have to be negative: it fails too, even
    // when written so.
    p.edit("leaving about 0.62 s", "leaving about -1.38 s");
    let o = p.verify(&[]);
    o.assert_only_failures(&[
        "publication:pin:fleet-latency-budgets.deadline-below-ttft",
        "publication:statement:22.3",
    ]);
    o.assert_fails("publication:statement:22.3", "leaves no time of the budget");
    o.assert_fails(
        "publication:pin:fleet-latency-budgets.deadline-below-ttft",
        "is not below the TTFT budget 10 s",
    );
}

#[test]
fn bundle_claims_differ_from_the_publication_within_rounding() {
    // The bundle was sealed claiming a TTFT p50 of 5.19 s, the write-up
    // says 5.187 s: both round from the records' 5.1873 s.
    let mut p = published();
    p.c.edit_json("qualification.json", |q| {
        q["points"][0]["claims"]["ttft_s"]["p50"] = json!("5.19")
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_only_failures(&["publication:point:0.5.ttft_s.p50.sealed_claim"]);
    o.assert_fails(
        "publication:point:0.5.ttft_s.p50.sealed_claim",
        "sealed with the claim 5.19",
    );
}

#[test]
fn client_record_input_tokens_differ_from_the_published_input_length() {
    let mut p = published();
    p.c.edit_lines(C05, |lines| {
        lines[40] = lines[40].replace("\"input_tokens\":8192", "\"input_tokens\":8000")
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_only_failures(&["publication:pin:workload.records-input-tokens"]);
    o.assert_fails(
        "publication:pin:workload.records-input-tokens",
        "benchmark/rate-0.5/client.jsonl:41 has input_tokens 8000",
    );
}

#[test]
fn prompt_of_one_repeated_token_id() {
    let mut p = published();
    p.c.edit_json("inputs/workload.json", |w| {
        w["token_pool"] = json!(vec![151643; 28])
    });
    p.reseal();
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:pin:workload.token-pool",
        "every prompt repeats one token id (151643)",
    );
}

#[test]
fn a_row_with_an_unknown_label_is_named_not_checked_and_fails_when_all_rows_are_required() {
    let p = published();
    p.edit("| Model |", "| Tokenizer revision | 5e1d0c |\n| Model |");
    let o = p.verify(&[]);
    o.assert_ok();
    assert_eq!(unmapped(&o), ["publication:pin:tokenizer-revision"]);
    assert!(o.check("publication:pin:tokenizer-revision")["detail"]
        .as_str()
        .unwrap()
        .contains("no evidence in this run records"));
    assert!(o.report["verdict"]
        .as_str()
        .unwrap()
        .contains("NOT CHECKED"));
    // The human output names it at the end.
    let (bundle, trust) = (p.c.bundle_path(), p.c.trust());
    let (code, stdout, _) = proofpack(&[
        os("verify"),
        bundle.as_os_str(),
        os("--publication"),
        p.path.as_os_str(),
        os("--trust"),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 0);
    let tail = stdout
        .split("Published but not checked")
        .nth(1)
        .expect("listed at the end");
    assert!(
        tail.contains("publication:pin:tokenizer-revision"),
        "{stdout}"
    );
    for flag in ["--require-all", "--require-all-rows"] {
        p.verify(&[os(flag)])
            .assert_fails("publication:pin:tokenizer-revision", "--require-all");
    }
}

// ------------------------------------------------------------- pins

fn excerpt() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/publication/excerpt.md"),
    )
    .unwrap()
}

fn pins_of(text: &str) -> Value {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("w.md");
    std::fs::write(&f, text).unwrap();
    let out = d.path().join("pins.json");
    let (code, _, stderr) = proofpack(&[
        os("pins"),
        os("from-publication"),
        f.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
}

fn expected_excerpt_pins() -> Value {
    let h = |c: char| c.to_string().repeat(64);
    let mut v = vec![
        json!({"name": "narwhal-router-source", "value": "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"}),
        json!({"name": "benchmark-client-source", "value": "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4"}),
        json!({"name": "engine-image", "sha256": h('1')}),
        json!({"name": "weights.manifest", "sha256": h('2'), "shards": 96}),
        json!({"name": "config.json", "sha256": h('3')}),
        json!({"name": "profile-store", "sha256": h('4')}),
        json!({"name": "qualified-fleet", "sha256": h('5')}),
        json!({"name": "benchmark-plan", "sha256": h('6')}),
        json!({"name": "workload", "sha256": h('7')}),
        json!({"name": "bundle", "sha256": h('8')}),
    ];
    v.sort_by_key(|p| p["name"].as_str().unwrap().to_string());
    Value::Array(v)
}

fn sorted_pins(v: &Value) -> Value {
    let mut p = v["pins"].as_array().unwrap().clone();
    p.sort_by_key(|p| p["name"].as_str().unwrap().to_string());
    Value::Array(p)
}

#[test]
fn pins_from_publication_on_the_excerpt_extracts_exactly_its_values() {
    let v = pins_of(&excerpt());
    assert_eq!(v["schema"], "proofpack/pins/v1");
    assert_eq!(sorted_pins(&v), expected_excerpt_pins());
}

#[test]
fn pins_from_publication_on_variants_of_the_excerpt() {
    let e = excerpt();
    let mut reordered: Vec<&str> = e.lines().collect();
    reordered.swap(4, 16);
    reordered.swap(7, 11);
    let variants = [
        (
            "headings without ¶",
            e.replace("Pinned inputs¶", "## Pinned inputs\n")
                .replace("Measured points¶", "\n## Measured points\n"),
        ),
        (
            "alignment colons",
            e.replacen("|---|---|\n", "|:---|---:|\n", 1)
                .replace("|---|---|---|---|---|---|", "|:--|:-:|--:|---|---|:--|"),
        ),
        (
            "extra spaces",
            e.replace("| ", "|   ").replace(" |", "   |"),
        ),
        ("rows in another order", reordered.join("\n") + "\n"),
        (
            "an extra column",
            e.replace("| Input | Value |", "| Input | Value | Notes |")
                .replacen("|---|---|\n", "|---|---|---|\n", 1)
                .replace(
                    "| Model | example-org/Example-Model |",
                    "| Model | example-org/Example-Model | as served |",
                ),
        ),
    ];
    for (what, text) in variants {
        assert_eq!(
            sorted_pins(&pins_of(&text)),
            expected_excerpt_pins(),
            "{what}"
        );
    }
}

#[test]
fn malformed_write_ups_are_exit_2_naming_the_line() {
    let e = excerpt();
    let cases = [
        (
            "no tables",
            "Just prose, no tables.\n".to_string(),
            "no pinned-inputs table",
        ),
        (
            "a table with a missing column",
            e.replace(
                "| TPOT p50 / p95 / p99 | Result |",
                "| TPOT p50 / p95 / p99 |",
            )
            .replace("|---|---|---|---|---|---|", "|---|---|---|---|---|"),
            "w.md:24:1: this table row is written with 6 cells under a header of 5",
        ),
        (
            "a cell that is not a number",
            e.replace("58.9 tokens/s", "lots tokens/s"),
            "w.md:24: column \"Output throughput including drain\"",
        ),
        (
            "a value with an unknown unit",
            e.replace("58.9 tokens/s", "58.9 widgets/s"),
            "\"widgets/s\" is not understood",
        ),
        (
            "two Pinned inputs tables",
            format!("{e}\nPinned inputs¶\n| Input | Value |\n|---|---|\n| Model | x |\n"),
            "a second pinned-inputs table (the first is at line 3)",
        ),
        (
            // v1.1: the node limit bounds the parser's memory (100,000).
            "more parse nodes than the limit (a table of 34,000 rows)",
            format!("{e}\n|a|b|\n|-|-|\n{}", "|1|2|\n".repeat(34_000)),
            "the write-up parses into more than 100000 blocks, cells and inline spans",
        ),
        (
            // v1.1: every statement is a check, so their number is capped
            // (10,000); the line of the first one past the cap is named.
            "more statements than the limit (10,001 short claims)",
            format!("{e}\n{}\n", "It 1. ".repeat(10_001)),
            "w.md:29: more than 10000 statements",
        ),
    ];
    for (what, text, want) in cases {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("w.md");
        std::fs::write(&f, &text).unwrap();
        let (code, _, stderr) = proofpack(&[os("pins"), os("from-publication"), f.as_os_str()]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(stderr.contains(want), "{what}: {want:?} not in {stderr}");
        // verify refuses it as an argument the same way.
        let p = published();
        let (bundle, trust) = (p.c.bundle_path(), p.c.trust());
        let (code, _, stderr) = proofpack(&[
            os("verify"),
            bundle.as_os_str(),
            os("--publication"),
            f.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
        ]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(stderr.contains(want), "{what}: {stderr}");
    }
}

/// An auditor holding only the write-up: `verify --publication` alone is
/// a usage error (exit 2) that names the bundle the write-up names, its
/// digest and the command to run once it is in hand, not a bare "missing
/// argument".
#[test]
fn a_write_up_alone_names_the_bundle_to_get() {
    let writeup = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample/PUBLICATION.md");
    let out = qualify_support::common::proofpack()
        .args(["--no-catalog", "verify", "--publication"])
        .arg(&writeup)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the write-up names the bundle kimi-k3-mi355x-20260923-sample.tgz (SHA-256 8004d769442f982102f02858e4f37048162d835a44726ea78fb3d2fe93122f07)"),
        "{err}"
    );
    assert!(
        err.contains("run: proofpack verify kimi-k3-mi355x-20260923-sample.tgz --publication"),
        "{err}"
    );
    // The command it prints, run as given from where the bundle is, its
    // one placeholder (TRUST, the auditor's own trust file) filled in.
    let cmd = err.trim_end().rsplit("run: ").next().unwrap();
    let trust = writeup.with_file_name("trust.json");
    let words: Vec<String> = cmd
        .split(' ')
        .skip(1)
        .map(|w| {
            if w == "TRUST" {
                trust.display().to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    let out = qualify_support::common::proofpack()
        .arg("--no-catalog")
        .args(&words)
        .current_dir(writeup.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{cmd}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Neither a target nor a write-up: clap's own usage error.
    let out = qualify_support::common::proofpack()
        .args(["--no-catalog", "verify"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
