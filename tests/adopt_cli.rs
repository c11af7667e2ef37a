//! The adoption tour through the binary (issue 24): `run new` -> `run
//! import` (the real vLLM 0.19.1 file and a generated `bench serve` file;
//! the real 2024 file and the SGLang file refused) -> attestations and host
//! checks with the TEST-ONLY keys -> `publish` -> `seal` -> `publish
//! --bundle` -> `verify --publication`; a run without a journal verifies
//! "client records only" and fails under `--require-all`; a LiteLLM log
//! imported as the journal makes it pass; a changed TTFT in the raw file
//! fails `point:<name>.derived` and the claims it changes.

mod adopt_support;

use adopt_support::*;
use std::path::{Path, PathBuf};

use serde_json::Value;

#[test]
fn the_tour_publishes_a_write_up_that_verifies_by_construction() {
    let t = Tour::new();
    // The two refusals of the tour: no start times in either file.
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &real_2024(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("lambdalabs-benchmark-serving-2024.json: no per-request start times"),
        "{err}"
    );
    assert!(
        err.contains("offered rate and the measurement window cannot be checked"),
        "{err}"
    );
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-2",
        &generated_sglang(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sglang-bench-serving-import.jsonl: detected as SGLang bench_serving"),
        "{err}"
    );
    assert!(err.contains("saves no per-request send times"), "{err}");
    t.import_both();
    let records = std::fs::read_to_string(t.in_run("points/rate-5/client.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 100);
    assert!(records.contains("\"anchor_precision_s\":1"), "{records}");
    assert!(t.in_run("inputs/rate-5.vllm.json").is_file());
    assert_eq!(
        std::fs::read(t.in_run("inputs/rate-5.vllm.json")).unwrap(),
        std::fs::read(real_vllm()).unwrap(),
        "the raw file is kept byte for byte"
    );
    let q = t.json("qualification.json");
    assert_eq!(q["points"][0]["source"]["file"], "inputs/rate-5.vllm.json");
    assert_eq!(
        q["points"][0]["claims"],
        serde_json::json!({}),
        "run import writes no claims"
    );
    t.attest();
    t.publish(false);
    let q = t.json("qualification.json");
    assert_eq!(q["points"][1]["claims"]["within_limits"], 58);
    t.seal();
    t.publish(true);
    let text = std::fs::read_to_string(t.path("PUBLICATION.md")).unwrap();
    assert!(
        text.contains("| 5 request/s | 4.828 request/s | 309.0 tokens/s |"),
        "{text}"
    );
    assert!(
        text.contains("58/60 within limits, 1 failed, 1 timed out"),
        "{text}"
    );
    assert!(
        text.contains("The sealed bundle is run.tgz (SHA-256 "),
        "{text}"
    );
    assert!(!text.contains('<'), "no raw HTML: {text}");
    let v = t.verify(&t.bundle(), false);
    v.assert_ok();
    assert_eq!(
        v.report["verdict"]
            .as_str()
            .unwrap()
            .split(':')
            .next()
            .unwrap(),
        "VERIFIED (client records only, no second witness)"
    );
    for id in [
        "point:rate-5.derived",
        "point:rate-5.source",
        "point:rate-2.derived",
        "publication:bundle",
        "host:node-0",
    ] {
        assert_eq!(
            v.check(id)["ok"],
            Value::Bool(true),
            "{id}: {}",
            v.check(id)
        );
    }
    for id in [
        "point:rate-5.journal.terminal",
        "point:rate-2.journal.timing",
    ] {
        let c = v.check(id);
        assert_eq!(c["ok"], Value::Null);
        assert_eq!(c["reason"], "no_evidence");
        assert!(c["detail"]
            .as_str()
            .unwrap()
            .contains("no independent journal witnesses the client records"));
    }
    // No row or cell of the write-up is left unmapped; only the journals
    // are missing, and --require-all fails them (one cause per point).
    let strict = t.verify(&t.bundle(), true);
    assert_eq!(strict.code, 1);
    let mut causes: Vec<String> = strict
        .failed()
        .into_iter()
        .filter(|id| strict.check(id)["reason"] != "not_checkable")
        .collect();
    causes.sort();
    assert_eq!(
        causes,
        [
            "point:rate-2.journal.terminal",
            "point:rate-5.journal.terminal"
        ]
    );
    assert_eq!(
        strict.failed().len(),
        8,
        "the other journal checks are not checkable because of them"
    );
    assert_eq!(
        strict.check("point:rate-5.status")["reason"],
        "not_checkable"
    );
    assert_eq!(
        strict.check("point:rate-5.status")["cause"],
        "point:rate-5.journal.terminal"
    );
    // The same flag under its old name.
    let (code, out, _) = pp(&[
        &"verify",
        &t.bundle(),
        &"--trust",
        &trust(),
        &"--publication",
        &t.path("PUBLICATION.md"),
        &"--require-all-rows",
    ]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn a_router_log_becomes_the_second_witness() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    for (point, shift) in [("rate-5", 0.4375), ("rate-2", -0.25)] {
        let log = t.litellm_log(point, shift);
        let out = pp_ok(&[
            &"run",
            &"import",
            &t.run(),
            &"--point",
            &point,
            &"--journal",
            &log,
        ]);
        assert!(
            out.contains("left out: 1 line(s) of other requests, 1 without an x-request-id"),
            "{out}"
        );
    }
    let q = t.json("qualification.json");
    assert_eq!(q["points"][0]["journal"], "points/rate-5/journal.jsonl");
    assert_eq!(q["points"][0]["source"]["anchor_adjust_s"], 0.437);
    assert_eq!(q["points"][1]["source"]["anchor_adjust_s"], -0.25);
    t.publish(false);
    t.seal();
    let v = t.verify(&t.bundle(), true);
    v.assert_ok();
    let verdict = v.report["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("VERIFIED: "), "{verdict}");
    for id in [
        "point:rate-5.journal.timing",
        "point:rate-2.status",
        "point:rate-2.derived",
        "point:rate-5.journal_source",
        "point:rate-2.journal_source",
    ] {
        assert_eq!(
            v.check(id)["ok"],
            Value::Bool(true),
            "{id}: {}",
            v.check(id)
        );
    }
    // A log whose clock is three seconds off is not of this run's anchor.
    let far = t.litellm_log("rate-5", 3.0);
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &"--journal",
        &far,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("rate-5.litellm.jsonl: the router's clock and the client's records differ by"),
        "{err}"
    );
}

#[test]
fn a_changed_ttft_in_the_raw_file_fails_derived_and_the_claims_it_changes() {
    let t = Tour::published();
    // The raw file inside the run: ttfts[0] of the real file, raised so that
    // it becomes the largest TTFT of the point (p99 moves, p50 and p95 do not).
    let raw = t.in_run("inputs/rate-5.vllm.json");
    let text = std::fs::read_to_string(&raw).unwrap();
    let changed = text.replacen(
        "\"ttfts\": [0.07140802964568138,",
        "\"ttfts\": [0.5714080296456814,",
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&raw, changed).unwrap();
    let v = t.verify(&t.run(), false);
    v.assert_fails(
        "point:rate-5.derived",
        "differs from the records derived from inputs/rate-5.vllm.json at line 1 (request",
    );
    assert!(v.check("point:rate-5.derived")["detail"]
        .as_str()
        .unwrap()
        .ends_with("(request \"rate-5-0\")"));
    v.assert_fails(
        "point:rate-5.claim.ttft_s.p99",
        "does not round to published 0.06551",
    );
    v.assert_fails("point:rate-5.source", "result.mean_ttft_ms");
    assert!(
        v.failed()
            .iter()
            .any(|id| id.starts_with("publication:point:5.") && id.contains("p99")),
        "the write-up's TTFT p99 cell fails too: {:?}",
        v.failed()
    );
    assert_eq!(
        v.check("point:rate-5.claim.ttft_s.p50")["ok"],
        Value::Bool(true)
    );
    assert_eq!(v.check("point:rate-2.derived")["ok"], Value::Bool(true));
}

#[test]
fn a_changed_records_file_fails_derived_naming_the_line() {
    let t = Tour::published();
    let rel = "points/rate-2/client.jsonl";
    let text = std::fs::read_to_string(t.in_run(rel)).unwrap();
    // A failed request reported as a timeout instead of an error.
    let line = text
        .lines()
        .position(|l| l.contains("\"status\":\"error\""))
        .unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[line] = lines[line].replace("\"status\":\"error\"", "\"status\":\"timeout\"");
    std::fs::write(t.in_run(rel), lines.join("\n") + "\n").unwrap();
    let v = t.verify(&t.run(), false);
    v.assert_fails("point:rate-2.derived", &format!("at line {}", line + 1));
    // The counts come from the raw file, which still says error.
    assert_eq!(
        v.check("point:rate-2.claim.ttft_s.p50")["ok"],
        Value::Bool(true)
    );
    assert_eq!(v.failed(), ["point:rate-2.derived"]);
}

#[test]
fn a_plan_changed_after_the_import_fails_derived() {
    let t = Tour::published();
    let plan = t.in_run("inputs/benchmark-plan.json");
    let mut p: Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    p["note"] = Value::String("edited after the import".into());
    std::fs::write(&plan, serde_json::to_vec_pretty(&p).unwrap()).unwrap();
    let v = t.verify(&t.run(), false);
    v.assert_fails("point:rate-5.derived", "the plan changed after the import");
}

#[test]
fn a_template_keeps_the_authors_prose() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    let template = t.path("TEMPLATE.md");
    std::fs::write(
        &template,
        "# Qwen3-8B on one A100\n\nOur own introduction.\n\n## Pinned inputs\n\n| Input | Value |\n|---|---|\n| Model | something old |\n\nA paragraph between the tables.\n\n## Measured points\n\nAnd our closing words.\n",
    )
    .unwrap();
    pp_ok(&[
        &"publish",
        &t.run(),
        &"--template",
        &template,
        &"-o",
        &t.path("PUBLICATION.md"),
    ]);
    let text = std::fs::read_to_string(t.path("PUBLICATION.md")).unwrap();
    for kept in [
        "# Qwen3-8B on one A100\n",
        "Our own introduction.\n",
        "A paragraph between the tables.\n",
        "And our closing words.\n",
    ] {
        assert!(text.contains(kept), "{kept:?} lost:\n{text}");
    }
    assert!(!text.contains("something old"), "{text}");
    t.seal();
    let v = t.verify(&t.bundle(), false);
    v.assert_ok();
    // A template without the headings is refused.
    std::fs::write(&template, "# Mine\n\nNo tables here.\n").unwrap();
    let (code, _, err) = pp(&[
        &"publish",
        &t.run(),
        &"--template",
        &template,
        &"-o",
        &t.path("P2.md"),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("TEMPLATE.md: no \"Pinned inputs\" heading"),
        "{err}"
    );
    assert!(!t.path("P2.md").exists());
}

#[test]
fn a_launch_check_made_after_the_run_fails_its_time() {
    // Forged: the operator runs `host check` after the benchmark (here:
    // today, months after the imported run) and files it as the launch
    // check. The signature is the host's; the time says it checked nothing
    // the engine loaded.
    let t = Tour::published();
    redate_host_report(
        &t.in_run("host-checks/node-0.dsse.json"),
        "2026-06-25T16:00:00Z",
        "2026-06-25T16:01:00Z",
    );
    let v = t.verify(&t.run(), false);
    v.assert_fails("host:node-0.time", "2026-06-25T16:00:00Z");
    assert_eq!(v.failed(), ["host:node-0.time"]);
    // And a report made for another fleet file than the run's.
    let t = Tour::published();
    std::fs::write(
        t.in_run("inputs/fleet.json"),
        b"{\"hosts\":[{\"name\":\"node-0\"},{\"name\":\"node-9\"}]}\n",
    )
    .unwrap();
    let v = t.verify(&t.run(), false);
    v.assert_fails("host:node-0.fleet", "");
}

/// Weights of 3 shards beside a config, a tokenizer and the shard index:
/// 6 files, 3 of them shards.
fn mixed_weights(dir: &Path) -> PathBuf {
    let w = dir.join("weights");
    std::fs::create_dir(&w).unwrap();
    for i in 1..=3 {
        let name = format!("model-{i:05}-of-00096.safetensors");
        std::fs::copy(testdata("sample/weights").join(&name), w.join(&name)).unwrap();
    }
    for (name, text) in [
        (
            "config.json",
            "{\"architectures\":[\"Qwen3ForCausalLM\"]}\n",
        ),
        ("tokenizer.json", "{\"version\":\"1.0\"}\n"),
        ("model.safetensors.index.json", "{\"weight_map\":{}}\n"),
    ] {
        std::fs::write(w.join(name), text).unwrap();
    }
    w
}

#[test]
fn safetensors_shards_count_shards_and_files_count_files() {
    let t = Tour::new();
    t.import_both();
    t.attest_weights(&mixed_weights(t.dir.path()));
    t.publish(false);
    t.seal();
    t.publish(true);
    let text = std::fs::read_to_string(t.path("PUBLICATION.md")).unwrap();
    // publish states both counts, each as the reader compares it.
    assert!(
        text.contains("| Checkpoint weights | 3 safetensors shards; 6 files; SHA-256"),
        "{text}"
    );
    // (No journal in this tour: --require-all would fail that, not this.)
    let o = t.verify(&t.bundle(), false);
    assert_eq!(o.code, 0, "{}", o.stdout);
    let row = o.check("publication:pin:checkpoint-weights");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .ends_with("the manifest lists 6 files and 3 safetensors shards"),
        "{row}"
    );
    // A write-up that counts every file as a shard, or only the shards as
    // the files, fails the row.
    for (from, to, want) in [
        (
            "3 safetensors shards; 6 files",
            "6 safetensors shards",
            "lists 3 safetensors shards, the publication says 6",
        ),
        (
            "3 safetensors shards; 6 files",
            "3 files",
            "lists 6 files, the publication says 3",
        ),
    ] {
        std::fs::write(t.path("PUBLICATION.md"), text.replace(from, to)).unwrap();
        t.verify(&t.bundle(), false)
            .assert_fails("publication:pin:checkpoint-weights", want);
    }
    // The pins the write-up states carry both counts, and verify --pins
    // checks each.
    std::fs::write(t.path("PUBLICATION.md"), &text).unwrap();
    let pins = t.path("pins.json");
    pp_ok(&[
        &"pins",
        &"from-publication",
        &t.path("PUBLICATION.md"),
        &"-o",
        &pins,
    ]);
    let p: serde_json::Value = serde_json::from_slice(&std::fs::read(&pins).unwrap()).unwrap();
    let w = p["pins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "weights.manifest")
        .unwrap()
        .clone();
    assert_eq!(
        (w["files"].as_u64(), w["shards"].as_u64()),
        (Some(6), Some(3)),
        "{w}"
    );
    let mut forged = p.clone();
    for pin in forged["pins"].as_array_mut().unwrap() {
        if pin["name"] == "weights.manifest" {
            pin["shards"] = serde_json::json!(6);
        }
    }
    std::fs::write(&pins, serde_json::to_vec(&forged).unwrap()).unwrap();
    let o = Outcome::of(&[
        std::ffi::OsStr::new("verify"),
        t.bundle().as_os_str(),
        std::ffi::OsStr::new("--trust"),
        trust().as_os_str(),
        std::ffi::OsStr::new("--pins"),
        pins.as_os_str(),
        std::ffi::OsStr::new("--json"),
    ]);
    o.assert_fails(
        "pin:weights.manifest",
        "lists 3 safetensors shards, the pin says 6",
    );
}

/// `--point NAME:...,warmup=N` with a vLLM result file: vllm bench serve
/// keeps no warmup in its file, so relabelling its first requests as
/// warmups would drop measured requests (a failed one among them vanishes
/// from "0 failed"): `run import` refuses it, and a run whose
/// qualification declares warmups for such a point fails its source.
#[test]
fn a_vllm_point_declaring_warmups_is_refused() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=58,warmup=2"]);
    let (code, out, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-2",
        &generated_vllm(),
    ]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("keeps no warmup in its result file") && err.contains("warmup 0"),
        "{err}"
    );
    assert!(
        !t.in_run("points/rate-2/client.jsonl").exists(),
        "nothing written"
    );
    // The forged run: imported honestly as 60 measured requests, then the
    // qualification and the plan say its first 2 are warmups.
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-2",
        &generated_vllm(),
    ]);
    t.attest();
    t.publish(false);
    for file in ["qualification.json", "inputs/benchmark-plan.json"] {
        let path = t.in_run(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["points"][0]["warmup"] = 2.into();
        v["points"][0]["requests"] = 58.into();
        std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 1, "{}", o.stdout);
    o.assert_fails("point:rate-2.source", "keeps no warmup in its result file");
}

/// A run verified on client records alone is "VERIFIED (client records
/// only, no second witness)": its signed summary may not claim the level
/// of a qualification every check of which held. It says the bundle track
/// held qualified by what the evidence could not show.
#[test]
fn a_qualified_verdict_gives_a_qualified_summary_level() {
    let t = Tour::published();
    t.seal();
    let key = t.path("auditor");
    pp_ok(&[&"key", &"gen", &"-o", &key]);
    let vsa = t.path("run.vsa.dsse.json");
    let (code, out, err) = pp(&[
        &"verify",
        &t.bundle(),
        &"--trust",
        &trust(),
        &"--publication",
        &t.path("PUBLICATION.md"),
        &"--vsa",
        &vsa,
        &"--vsa-key",
        &t.path("auditor.key"),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("client records only, no second witness"),
        "{out}"
    );
    let env: Value = serde_json::from_slice(&std::fs::read(&vsa).unwrap()).unwrap();
    use base64::Engine as _;
    let payload = base64::engine::general_purpose::STANDARD
        .decode(env["payload"].as_str().unwrap())
        .unwrap();
    let st: Value = serde_json::from_slice(&payload).unwrap();
    let levels = &st["predicate"]["verifiedLevels"];
    assert_eq!(st["predicate"]["verificationResult"], "PASSED");
    assert!(
        levels
            .as_array()
            .unwrap()
            .contains(&Value::from("PROOFPACK_BUNDLE_QUALIFIED"))
            && !levels
                .as_array()
                .unwrap()
                .contains(&Value::from("PROOFPACK_BUNDLE")),
        "{levels}"
    );
}

/// An exit-2 `verify` leaves no output of an earlier run that would speak
/// for it: each output named on the command line is written for this run
/// or removed; an output that names an input is never touched.
#[test]
fn a_verification_that_cannot_run_leaves_no_stale_output() {
    let t = Tour::published();
    let (html, junit) = (t.path("report.html"), t.path("junit.xml"));
    let args = |pubn: &Path| -> Vec<std::ffi::OsString> {
        vec![
            "verify".into(),
            t.run().into(),
            "--trust".into(),
            trust().into(),
            "--publication".into(),
            pubn.into(),
            "--html".into(),
            html.clone().into(),
            "--junit".into(),
            junit.clone().into(),
        ]
    };
    let run = |a: Vec<std::ffi::OsString>| {
        let refs: Vec<&dyn AsRef<std::ffi::OsStr>> =
            a.iter().map(|x| x as &dyn AsRef<std::ffi::OsStr>).collect();
        pp(&refs)
    };
    let (code, out, err) = run(args(&t.path("PUBLICATION.md")));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(html.exists() && junit.exists());
    let (code, _, err) = run(args(&t.path("missing.md")));
    assert_eq!(code, 2, "{err}");
    assert!(
        !html.exists() && !junit.exists(),
        "stale outputs left: {err}"
    );
    // An output that names an input is not removed.
    let writeup = t.path("PUBLICATION.md");
    let before = std::fs::read(&writeup).unwrap();
    let (code, _, _) = run(vec![
        "verify".into(),
        t.run().into(),
        "--publication".into(),
        writeup.clone().into(),
        "--html".into(),
        writeup.clone().into(),
    ]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read(&writeup).unwrap(), before);
}

/// `--catalog` naming a device, a FIFO or a directory is refused before
/// SQLite opens it (SQLite would write its journal beside it).
#[test]
fn a_catalog_path_that_is_not_a_regular_file_is_refused() {
    let t = Tour::new();
    for path in [Path::new("/dev/null").to_path_buf(), t.path("")] {
        let out = command()
            .arg("--catalog")
            .arg(&path)
            .args(["catalog", "list"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
    assert!(!Path::new("/dev/null-journal").exists());
}

/// `run import` never writes through a link planted in the run directory:
/// a records file or a directory that is a link is refused (exit 2) and
/// the file it names, outside the run, is unchanged.
#[test]
fn run_import_writes_through_no_planted_link() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    let outside = t.path("outside.txt");
    std::fs::write(&outside, b"precious\n").unwrap();
    std::fs::create_dir_all(t.in_run("points/rate-2")).unwrap();
    std::os::unix::fs::symlink(&outside, t.in_run("points/rate-2/client.jsonl")).unwrap();
    let import = || {
        pp(&[
            &"run",
            &"import",
            &t.run(),
            &"--point",
            &"rate-2",
            &generated_vllm(),
        ])
    };
    let (code, _, err) = import();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("never through a link it did not make"),
        "{err}"
    );
    assert_eq!(std::fs::read(&outside).unwrap(), b"precious\n");
    assert!(
        !t.in_run("inputs/rate-2.vllm.json").exists(),
        "all or nothing: no file written before the refusal"
    );
    // A linked directory: the write would land in the directory it names.
    std::fs::remove_file(t.in_run("points/rate-2/client.jsonl")).unwrap();
    std::fs::remove_dir(t.in_run("points/rate-2")).unwrap();
    let elsewhere = t.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, t.in_run("points/rate-2")).unwrap();
    let (code, _, err) = import();
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// `publish` with an `-o` it cannot write changes nothing: the run's
/// qualification.json keeps its bytes.
#[test]
fn publish_to_an_unwritable_output_changes_nothing() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    let before = std::fs::read(t.in_run("qualification.json")).unwrap();
    let locked = t.path("locked");
    std::fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = locked.join("PUBLICATION.md");
    let missing = t.path("no-such-dir/PUBLICATION.md");
    for o in [&missing, &out] {
        // root may write a 0555 directory: only the missing directory is
        // sure to fail there.
        if o == &out && std::fs::write(locked.join("probe"), b"").is_ok() {
            continue;
        }
        let (code, _, err) = pp(&[&"publish", &t.run(), &"-o", o]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(
            std::fs::read(t.in_run("qualification.json")).unwrap(),
            before
        );
    }
}

/// The router log kept in the run is the journal's evidence: a journal
/// replaced after the import (its TTFTs made to agree with a forged
/// claim) fails `.journal_source`, even under `--require-all` where the
/// replaced journal's own checks pass.
#[test]
fn a_replaced_journal_fails_against_its_router_log() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    let log = t.litellm_log("rate-5", 0.0);
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &"--journal",
        &log,
    ]);
    t.publish(false);
    let journal = t.in_run("points/rate-5/journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    // Every event 1 ms later: the journal still witnesses the records.
    let forged: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let at = v["at"].as_f64().unwrap();
            v["at"] = Value::from(at + 0.001);
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&journal, forged).unwrap();
    let v = t.verify(&t.run(), true);
    v.assert_fails(
        "point:rate-5.journal_source",
        "is not the journal the router log",
    );
    // A journal that names no router log is the publisher's file.
    let q = t.in_run("qualification.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&q).unwrap()).unwrap();
    doc["points"][0]
        .as_object_mut()
        .unwrap()
        .remove("journal_source");
    std::fs::write(&q, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let v = t.verify(&t.run(), false);
    assert_eq!(
        v.check("point:rate-5.journal_source")["ok"],
        Value::Null,
        "{}",
        v.stdout
    );
    let v = t.verify(&t.run(), true);
    v.assert_fails("point:rate-5.journal_source", "names no router log");
}

/// Two points at the same offered rate (a repeated measurement): `publish`
/// names each row's point in a first "Point" column, and the write-up
/// verifies. The forged tables a publisher could make of it do not: the
/// two points' rows swapped, and one row at the shared rate with no point
/// named (which of the two would it be?); nor does a sentence about "the
/// 2 request/s point", which is no one point.
#[test]
fn two_points_at_the_same_rate_are_published_by_name() {
    let t = Tour::with_points(&["first:rate=2,requests=60", "second:rate=2,requests=60"]);
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"first",
        &generated_vllm(),
    ]);
    // The second measurement: every first token (and so every end) 50 ms
    // later, the client's summary of the original left out.
    let mut v: Value = serde_json::from_slice(&std::fs::read(generated_vllm()).unwrap()).unwrap();
    for key in ["ttfts", "latencies"] {
        for x in v[key].as_array_mut().unwrap() {
            *x = Value::from(x.as_f64().unwrap() + 0.05);
        }
    }
    v["duration"] = Value::from(v["duration"].as_f64().unwrap() + 0.05);
    // Measured a minute after the first.
    for x in v["start_times"].as_array_mut().unwrap() {
        *x = Value::from(x.as_f64().unwrap() + 60.0);
    }
    v["date"] = Value::from("20260625-154612");
    v.as_object_mut()
        .unwrap()
        .retain(|k, x| x.is_array() || ["date", "duration"].contains(&k.as_str()));
    let second = t.path("second.vllm.json");
    std::fs::write(&second, serde_json::to_vec(&v).unwrap()).unwrap();
    pp_ok(&[&"run", &"import", &t.run(), &"--point", &"second", &second]);
    t.attest();
    t.publish(false);
    let text = std::fs::read_to_string(t.path("PUBLICATION.md")).unwrap();
    assert!(
        text.contains("| Point | Offered rate | Completed rate including drain |"),
        "{text}"
    );
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 0, "{}", o.stdout);
    for p in ["first", "second"] {
        assert_eq!(
            o.check(&format!("publication:point:2:{p}.ttft_s.p50"))["ok"],
            true
        );
    }
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| first |") || l.starts_with("| second |"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    // The rows swapped: each point's cells are the other's.
    let swapped = text
        .replace("| first |", "| @@ |")
        .replace("| second |", "| first |")
        .replace("| @@ |", "| second |");
    std::fs::write(t.path("PUBLICATION.md"), &swapped).unwrap();
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 1, "{}", o.stdout);
    o.assert_fails("publication:point:2:first.ttft_s.p50", "");
    // One row at the shared rate, no point named.
    let unnamed: String = text
        .replace("| Point | Offered rate", "| Offered rate")
        .replace("|---|---|---|---|---|---|---|", "|---|---|---|---|---|---|")
        .replace("| first | ", "| ")
        .lines()
        .filter(|l| !l.starts_with("| second |"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(t.path("PUBLICATION.md"), &unnamed).unwrap();
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 1, "{unnamed}\n{}", o.stdout);
    o.assert_fails(
        "publication:point:2.offered_rate",
        "all declare this offered rate: a \\\"Point\\\" column names which point",
    );
    assert_eq!(
        o.check("publication:point:2.ttft_s.p50")["reason"],
        "not_checkable"
    );
    // A sentence about "the 2 request/s point".
    std::fs::write(
        t.path("PUBLICATION.md"),
        format!("{text}\nThe 2 request/s point: 60/60 within limits.\n"),
    )
    .unwrap();
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(
        o.stdout.contains("2 points of the run have 2 request/s"),
        "{}",
        o.stdout
    );
}

/// A name a table cell would not show as written (`run new` makes none;
/// an edited qualification.json can) is refused where two points share a
/// rate (exit 2, naming it), and nothing is written.
#[test]
fn a_point_name_a_cell_cannot_show_is_refused_by_publish() {
    let t = Tour::with_points(&["first:rate=2,requests=60", "second:rate=2,requests=60"]);
    for p in ["first", "second"] {
        pp_ok(&[
            &"run",
            &"import",
            &t.run(),
            &"--point",
            &p,
            &generated_vllm(),
        ]);
    }
    t.attest();
    let q = t.in_run("qualification.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&q).unwrap()).unwrap();
    doc["points"][0]["name"] = Value::from("a*b");
    std::fs::write(&q, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let before = std::fs::read(&q).unwrap();
    let (code, _, err) = pp(&[&"publish", &t.run(), &"-o", &t.path("PUBLICATION.md")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("point \"a*b\": two points have one offered rate"),
        "{err}"
    );
    assert!(!t.path("PUBLICATION.md").exists());
    assert_eq!(std::fs::read(&q).unwrap(), before);
}

/// An honest stream that failed after its first token: the client records
/// its first token, the router's failure record cannot say whether a chunk
/// came, so its journal has no first_token event. That contradicts
/// nothing (no metric reads a failed request's first token): the run
/// verifies with the router log as its second witness.
#[test]
fn a_stream_that_failed_after_its_first_token_verifies_with_its_router_log() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    let src: Value = serde_json::from_slice(&std::fs::read(generated_vllm()).unwrap()).unwrap();
    let mut v = src.clone();
    let failed = (0..v["errors"].as_array().unwrap().len())
        .find(|&i| v["errors"][i] == "Internal Server Error")
        .unwrap();
    v["ttfts"][failed] = Value::from(0.05);
    let file = t.path("rate-2.vllm.json");
    std::fs::write(&file, serde_json::to_vec(&v).unwrap()).unwrap();
    pp_ok(&[&"run", &"import", &t.run(), &"--point", &"rate-2", &file]);
    let records = std::fs::read_to_string(t.in_run("points/rate-2/client.jsonl")).unwrap();
    let rec: Value = serde_json::from_str(records.lines().nth(failed).unwrap()).unwrap();
    assert!(
        rec["first_token_at"].is_f64() && rec["status"] == "error",
        "{rec}"
    );
    t.attest();
    t.import_journal("rate-2", &t.litellm_log("rate-2", 0.0));
    t.publish(false);
    let o = t.verify(&t.run(), true);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(o.check("point:rate-2.journal.timing")["ok"], true);
}

/// The `host check` command `run new --host` prints is run as printed (its
/// placeholders WEIGHTS, HOST and HOST.key filled in, nothing added): the
/// report it signs binds the config hashed on the host, and the run that
/// carries it verifies `host:node-0.config`.
#[test]
fn the_printed_host_check_command_works_as_printed() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    std::fs::remove_dir_all(t.run()).unwrap();
    let (code, _, err) = pp(&[
        &"run",
        &"new",
        &t.run(),
        &"--model",
        &"Qwen/Qwen3-8B",
        &"--slo",
        &"ttft=10,tpot=0.3,attainment=0.95",
        &"--point",
        &"rate-2:rate=2,requests=60",
        &"--max-input-tokens",
        &"256",
        &"--max-output-tokens",
        &"128",
        &"--host",
        &"node-0",
    ]);
    assert_eq!(code, 0, "{err}");
    let printed = err
        .split("before its engine launches: ")
        .nth(1)
        .and_then(|s| s.lines().next())
        .unwrap_or_else(|| panic!("no host check command in: {err}"))
        .to_string();
    assert!(printed.contains("--config"), "{printed}");
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-2",
        &generated_vllm(),
    ]);
    // The host's weights directory holds the model's config.json.
    let weights = t.path("weights");
    std::fs::create_dir(&weights).unwrap();
    for e in std::fs::read_dir(testdata("sample/weights")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), weights.join(e.file_name())).unwrap();
    }
    let config = b"{\"architectures\":[\"Qwen3ForCausalLM\"]}\n";
    std::fs::write(weights.join("config.json"), config).unwrap();
    t.attest_weights(&weights);
    let report = t.in_run("host-checks/node-0.dsse.json");
    std::fs::remove_file(&report).unwrap();
    let filled = printed
        .replace("WEIGHTS", weights.to_str().unwrap())
        .replace("HOST.key", key("host").to_str().unwrap())
        .replace("HOST.dsse.json", "node-0.dsse.json")
        .replace("--host HOST", "--host node-0");
    let args: Vec<&str> = filled.split_whitespace().collect();
    assert_eq!(args[0], "proofpack", "{filled}");
    let refs: Vec<&dyn AsRef<std::ffi::OsStr>> = args[1..]
        .iter()
        .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
        .collect();
    pp_ok(&refs);
    redate_host_report(&report, "2026-06-25T14:50:00Z", "2026-06-25T14:51:00Z");
    t.publish(false);
    let o = t.verify(&t.run(), false);
    assert_eq!(o.check("host:node-0.config")["ok"], true, "{}", o.stdout);
    assert_eq!(o.code, 0, "{}", o.stdout);
}

/// A file proofpack knows as something else, given where the run goes
/// (`verify WRITEUP.md`), is a usage error naming where it goes (exit 2),
/// not a corrupt bundle (exit 1).
#[test]
fn verify_of_a_write_up_says_where_it_goes() {
    for (file, needle) in [
        (
            "sample/PUBLICATION.md",
            "a write-up is given with --publication",
        ),
        ("sample/trust.json", "a trust file is given with --trust"),
    ] {
        let (code, _, err) = pp(&[&"verify", &testdata(file), &"--trust", &trust()]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("not the run to verify") && err.contains(needle),
            "{err}"
        );
    }
}

/// A bundle sealed under a name of its own (`seal RUN -o
/// dist/mybench-v2.tgz`): `publish --bundle` names it so, and `verify`
/// holds the sentence against the bundle it verifies.
#[test]
fn a_bundle_under_another_name_keeps_its_sentence() {
    let t = Tour::published();
    let other = t.path("mybench-v2.tgz");
    pp_ok(&[&"seal", &t.run(), &"-o", &other, &"--key", &key("release")]);
    let out = t.path("PUBLICATION.md");
    pp_ok(&[&"publish", &t.run(), &"--bundle", &other, &"-o", &out]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("mybench-v2.tgz"), "{text}");
    let o = t.verify(&other, false);
    assert_eq!(o.code, 0, "{}", o.stdout);
}

/// On the README's happy path `publish` warns of nothing: the facts `run
/// import` itself wrote (each point's result file, checked as the point's
/// source) are no cause for a warning.
#[test]
fn publish_on_the_tour_warns_of_nothing_import_wrote() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    let (code, _, err) = pp(&[&"publish", &t.run(), &"-o", &t.path("PUBLICATION.md")]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

/// The router log witnesses each answer's token count: the records' output
/// tokens (which drive the output throughput and TPOT) must be what it
/// counted. A kept log that counts fewer tokens than the records (the
/// result file inflated after the router served it) fails
/// `.journal_source.tokens`, though the journal itself still derives from
/// the log; `run import --journal` refuses such a log outright.
#[test]
fn the_router_log_witnesses_the_output_tokens() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    t.import("rate-2", &generated_vllm());
    t.attest();
    t.import_journal("rate-2", &t.litellm_log("rate-2", 0.0));
    t.publish(false);
    let o = t.verify(&t.run(), true);
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(o.check("point:rate-2.journal_source.tokens")["ok"], true);
    // The kept log counts 10 fewer tokens for one answer.
    let kept = t.in_run("inputs/rate-2.litellm.jsonl");
    let text = std::fs::read_to_string(&kept).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines
        .iter()
        .position(|l| l.contains("completion_tokens"))
        .unwrap();
    let mut v: Value = serde_json::from_str(&lines[at]).unwrap();
    let n = v["completion_tokens"].as_u64().unwrap();
    v["completion_tokens"] = Value::from(n - 10);
    lines[at] = v.to_string();
    std::fs::write(&kept, lines.join("\n") + "\n").unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails(
        "point:rate-2.journal_source.tokens",
        &format!(
            "{n} output tokens in the records, {} in inputs/rate-2.litellm.jsonl",
            n - 10
        ),
    );
    assert_eq!(o.check("point:rate-2.journal_source")["ok"], true);
    // The count removed from that one answer, the others left as witnesses:
    // a log states the count of every answer or of none.
    let mut stripped = lines.clone();
    let mut v: Value = serde_json::from_str(&stripped[at]).unwrap();
    v.as_object_mut().unwrap().remove("completion_tokens");
    stripped[at] = v.to_string();
    std::fs::write(&kept, stripped.join("\n") + "\n").unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails(
        "point:rate-2.journal_source.tokens",
        "no completion_tokens in inputs/rate-2.litellm.jsonl",
    );
    // The same log at import: refused, naming the request.
    let t2 = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    t2.import("rate-2", &generated_vllm());
    let forged = t2.path("forged.litellm.jsonl");
    std::fs::write(&forged, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t2.run(),
        &"--point",
        &"rate-2",
        &"--journal",
        &forged,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("output tokens in inputs/rate-2.vllm.json than the router counted"),
        "{err}"
    );
}

/// `run import --json` prints what was imported as one JSON object (for
/// scripts and CI), for a result file and for a router log alike.
#[test]
fn run_import_json_is_one_object() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    let out = t.import_args("rate-2", &[&generated_vllm(), &"--json"]);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["point"], "rate-2");
    assert_eq!(v["result_file"]["records"], 60, "{v}");
    assert_eq!(
        v["result_file"]["records_file"],
        "points/rate-2/client.jsonl"
    );
    let log = t.litellm_log("rate-2", 0.0);
    let out = t.import_args("rate-2", &[&"--journal", &log, &"--json"]);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        v["journal"]["journal"], "points/rate-2/journal.jsonl",
        "{v}"
    );
    assert!(v["journal"]["events"].as_u64().unwrap() >= 120, "{v}");
}

/// `publish --json` prints what it wrote as one JSON object, its notes
/// inside it.
#[test]
fn publish_json_is_one_object() {
    let t = Tour::new();
    t.import_both();
    t.attest();
    let out = pp_ok(&[
        &"publish",
        &t.run(),
        &"-o",
        &t.path("PUBLICATION.md"),
        &"--json",
    ]);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["points"], 2, "{v}");
    assert_eq!(v["claims_written"], true, "{v}");
    assert!(v["notes"].is_array(), "{v}");
    assert!(t.path("PUBLICATION.md").exists());
}

/// A router log that counts no answer's tokens witnesses none: the check
/// is not checked, and the verdict says what it did not cover.
#[test]
fn a_log_without_token_counts_is_named_in_the_verdict() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    t.import("rate-2", &generated_vllm());
    t.attest();
    let log = t.litellm_log("rate-2", 0.0);
    let text: String = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("completion_tokens");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&log, text).unwrap();
    t.import_journal("rate-2", &log);
    t.publish(false);
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 0, "{}", o.stdout);
    let c = o.check("point:rate-2.journal_source.tokens");
    assert_eq!(c["reason"], "no_evidence", "{c}");
    let verdict = o.report["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("output tokens not witnessed by the router log"),
        "{verdict}"
    );
    let o = t.verify(&t.run(), true);
    assert_eq!(o.code, 1, "{}", o.stdout);
}
