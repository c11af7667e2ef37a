//! Host reports bound to their run (contract v1.1, section 10), each way
//! the hostile review got a report to verify rebuilt end to end through the
//! binary: re-signed with the host key (the publisher controls what the
//! hosts sign) and sealed into the bundle, or fed to `fleet verify`; and
//! the sizes-only checks refused against a record that pins no shard
//! headers.

mod fleet_support;

use fleet_support::qualify_support::*;
use fleet_support::*;
use serde_json::{json, Value};

const RECORD: &str = "manifests/weights.manifest.json";

/// The Statement of a DSSE envelope file.
fn statement(path: &std::path::Path) -> Value {
    statement_of(path)
}

/// Re-signs host `i`'s report of the sample with the host key after `edit`.
fn resign_host(c: &Case, i: usize, edit: impl FnOnce(&mut Value)) {
    c.resign_host(i, edit)
}

fn h(i: usize) -> String {
    format!("host:{}", gen::host_name(i))
}

#[test]
fn a_report_from_2019_under_another_root() {
    let c = fresh();
    resign_host(&c, 1, |st| {
        st["predicate"]["root"] = json!("/srv/old-models/kimi");
        st["predicate"]["started_at"] = json!("2019-03-01T10:00:00Z");
        st["predicate"]["finished_at"] = json!("2019-03-01T10:00:02Z");
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.time", h(1))]);
    o.assert_fails(
        &format!("{}.time", h(1)),
        "before 86400 s (host_check_window_s) before its engine's launch",
    );
}

#[test]
fn a_report_dated_after_the_run_started() {
    // Dated after the seal, or after the first request: it cannot be the
    // check the engines were launched on.
    let c = fresh();
    resign_host(&c, 2, |st| {
        st["predicate"]["started_at"] = json!("2026-09-23T12:30:00Z");
        st["predicate"]["finished_at"] = json!("2026-09-23T12:30:02Z");
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.time", h(2))]);
    o.assert_fails(&format!("{}.time", h(2)), "after the run's first request");
}

#[test]
fn a_report_that_finished_two_hours_before_it_started() {
    let c = fresh();
    resign_host(&c, 0, |st| {
        st["predicate"]["started_at"] = json!("2026-09-23T07:30:10Z");
        st["predicate"]["finished_at"] = json!("2026-09-23T05:30:10Z");
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.time", h(0))]);
    o.assert_fails(&format!("{}.time", h(0)), "7200 s before it started");
}

#[test]
fn a_report_of_one_file_or_of_a_full_check_of_none() {
    let c = fresh();
    resign_host(&c, 1, |st| st["predicate"]["files"] = json!(1));
    resign_host(&c, 3, |st| {
        st["predicate"]["mode"] = json!("full");
        st["predicate"]["files"] = json!(0);
        st["predicate"]["bytes"] = json!(0);
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.totals", h(1)), &format!("{}.totals", h(3))]);
    o.assert_fails(
        &format!("{}.totals", h(1)),
        "states 1 files and 16896 bytes, but the manifest it names lists 96 files",
    );
    o.assert_fails(&format!("{}.totals", h(3)), "states 0 files and 0 bytes");
}

#[test]
fn passed_true_beside_a_named_failure() {
    let c = fresh();
    resign_host(&c, 2, |st| {
        st["predicate"]["failures"] =
            json!(["model-00042-of-00096.safetensors: size mismatch: manifest says 176 bytes, file has 173"]);
    });
    let o = c.verify_sealed();
    let id = format!("{}.passed", h(2));
    o.assert_only_failures(&[&id, &format!("{}.shards", h(2))]);
    o.assert_fails(
        &id,
        "inconsistent: passed true beside 0 failed path(s) and 1 named failure",
    );
}

#[test]
fn a_stated_config_does_not_confirm_the_config() {
    // The report says config_source "stated": no config file was hashed on
    // the host. It is not checked (ok null, a reason), never a pass; with
    // --require-all it fails.
    let c = fresh();
    for i in 0..gen::ENGINES {
        resign_host(&c, i, |st| {
            st["predicate"]["config_source"] = json!("stated")
        });
    }
    let o = c.verify_sealed();
    o.assert_ok();
    let cfg = o.check(&format!("{}.config", h(0)));
    assert_eq!(cfg["ok"], Value::Null, "{cfg}");
    assert_eq!(cfg["reason"], "stated_by_publisher", "{cfg}");
    assert!(
        cfg["detail"]
            .as_str()
            .unwrap()
            .contains("config stated, not hashed on the host"),
        "{cfg}"
    );
    let bundle = c.seal();
    let publication = c.dir.path().join("PUBLICATION.md");
    std::fs::write(&publication, gen::publication(&c.sample, &bundle)).unwrap();
    let o = verify_with(
        &c.bundle_path(),
        &[
            "--trust".as_ref(),
            c.trust().as_os_str(),
            "--publication".as_ref(),
            publication.as_os_str(),
            "--require-all".as_ref(),
        ],
    );
    o.assert_fails(
        &format!("{}.config", h(3)),
        "config stated, not hashed on the host",
    );
}

#[test]
fn a_report_of_another_run_or_another_fleet() {
    let c = fresh();
    resign_host(&c, 0, |st| {
        st["predicate"]["run"] = json!("kimi-k3-mi355x-20260801")
    });
    resign_host(&c, 1, |st| {
        st["predicate"]["fleet"] = json!(format!("sha256:{}", "ab".repeat(32)))
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.run", h(0)), &format!("{}.fleet", h(1))]);
    o.assert_fails(
        &format!("{}.run", h(0)),
        "made for run \\\"kimi-k3-mi355x-20260801\\\"",
    );
    o.assert_fails(&format!("{}.fleet", h(1)), "the report is of another fleet");
}

#[test]
fn a_report_of_the_v1_predicate_is_not_bound_and_the_verdict_says_so() {
    // Forged downgrade: a report re-signed as the v1 predicate (which
    // names no run, fleet or shard headers), so that a report of another
    // run cannot be told from this run's. Its bindings are not checked, the
    // verdict says the launch checks are not bound, and --require-all
    // fails them.
    let c = fresh();
    resign_host(&c, 2, |st| {
        st["predicateType"] = json!("urn:proofpack:predicate:host-check:v1");
        let p = st["predicate"].as_object_mut().unwrap();
        for k in ["run", "fleet", "shards"] {
            p.remove(k);
        }
        p.insert("root".into(), json!("/srv/another-run/kimi"));
    });
    let o = c.verify_sealed();
    assert_eq!(o.code, 0, "{}", o.stdout);
    for s in ["run", "fleet", "shards"] {
        let ch = o.check(&format!("{}.{s}", h(2)));
        assert_eq!(ch["reason"], "no_evidence", "{ch}");
        assert!(
            ch["detail"].as_str().unwrap().contains("v1 predicate"),
            "{ch}"
        );
    }
    assert_eq!(o.check(&format!("{}.totals", h(2)))["ok"], true);
    let verdict = o.report["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with(
            "VERIFIED (host launch checks not bound to this run's fleet and weights record): "
        ),
        "{verdict}"
    );
    let strict = c.verify_require_all();
    strict.assert_fails(&format!("{}.run", h(2)), "(--require-all)");
    strict.assert_fails(&format!("{}.shards", h(2)), "v1 predicate");
}

#[test]
fn swapped_shard_headers_in_a_report_and_a_stripped_record() {
    // A report whose listed shard headers are not the record's fails; a
    // record in the run without header digests fails, and every host's
    // totals and shards are then not checkable because of it.
    let c = fresh();
    resign_host(&c, 1, |st| {
        let shards = st["predicate"]["shards"].as_array_mut().unwrap();
        let (a, b) = (
            shards[9]["header_sha256"].clone(),
            shards[10]["header_sha256"].clone(),
        );
        shards[9]["header_sha256"] = b;
        shards[10]["header_sha256"] = a;
    });
    let o = c.verify_sealed();
    o.assert_only_failures(&[&format!("{}.shards", h(1))]);
    o.assert_fails(
        &format!("{}.shards", h(1)),
        "model-00010-of-00096.safetensors: header",
    );
    let d = fresh();
    d.edit_json(RECORD, |r| {
        for e in r["entries"].as_array_mut().unwrap() {
            e.as_object_mut().unwrap().remove("header_sha256");
        }
    });
    let o = d.verify_sealed();
    o.assert_fails(
        "hosts.weights_record",
        "this record has no header digests; sizes-only cannot detect swapped shards",
    );
    let t = o.check(&format!("{}.shards", h(0)));
    assert_eq!(t["cause"], "hosts.weights_record", "{t}");
    assert_eq!(
        o.report["summary"]["failed"].as_u64().unwrap()
            - o.report["summary"]["not_checkable"].as_u64().unwrap(),
        1
    );
}

#[test]
fn a_qualification_that_names_no_fleet_or_record() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        let o = q.as_object_mut().unwrap();
        o.remove("qualified_fleet");
        o.remove("weights_record");
    });
    // As a run made before contract v1.1: the bindings are not checked,
    // the verdict says so, and --require-all fails them.
    let o = c.verify_sealed();
    assert_eq!(o.code, 0, "{}", o.stdout);
    assert_eq!(o.check("hosts.qualified_fleet")["reason"], "no_evidence");
    assert_eq!(o.check("hosts.weights_record")["reason"], "no_evidence");
    let f = o.check(&format!("{}.fleet", h(0)));
    assert_eq!(f["reason"], "no_evidence", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("see hosts.qualified_fleet"),
        "{f}"
    );
    assert!(
        o.report["verdict"]
            .as_str()
            .unwrap()
            .contains("host launch checks not bound"),
        "{}",
        o.report["verdict"]
    );
    let strict = c.verify_require_all();
    strict.assert_fails("hosts.qualified_fleet", "names no qualified fleet");
    strict.assert_fails("hosts.weights_record", "names no weights record");
}

#[test]
fn reports_bound_to_a_decoy_fleet_file_other_than_the_plans() {
    // A second fleet file that selects the same hosts, the reports made
    // again for it, and qualification.json pointing at it: the plan (and
    // the write-up's fleet rows) still name the other file.
    let c = fresh();
    let mut decoy: Value =
        serde_json::from_slice(&std::fs::read(c.path("inputs/fleet-qualified.json")).unwrap())
            .unwrap();
    decoy["fleet"] = json!("a decoy fleet");
    let bytes = serde_json::to_vec(&decoy).unwrap();
    std::fs::write(c.path("inputs/fleet-decoy.json"), &bytes).unwrap();
    let digest = proofpack::digest::Sha256Digest::of_bytes(&bytes);
    for i in 0..gen::ENGINES {
        resign_host(&c, i, |st| {
            st["predicate"]["fleet"] = json!(digest.prefixed())
        });
    }
    c.edit_json("qualification.json", |q| {
        q["qualified_fleet"] = json!("inputs/fleet-decoy.json")
    });
    let o = c.verify_sealed();
    o.assert_fails(
        "hosts.qualified_fleet",
        "but the benchmark plan inputs/benchmark-plan.json names the fleet inputs/fleet-qualified.json",
    );
    let f = o.check(&format!("{}.fleet", h(0)));
    assert_eq!(f["cause"], "hosts.qualified_fleet", "{f}");
}

// ------------------------------------------------ refusals, exit 2

/// The fleet's weights record with every header digest removed.
fn stripped_record(f: &Fleet) -> std::path::PathBuf {
    let mut r: Value = serde_json::from_slice(&std::fs::read(&f.manifest).unwrap()).unwrap();
    for e in r["entries"].as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("header_sha256");
    }
    let p = f.dir.path().join("stripped.manifest.json");
    std::fs::write(&p, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    p
}

const REFUSAL: &str = "this record has no header digests; sizes-only cannot detect swapped shards";

#[test]
fn sizes_only_against_a_stripped_record_is_refused_everywhere() {
    // Strip the header digests, swap two equal-size shards: `check
    // --sizes-only` printed OK, `host check` signed a passing report and
    // `fleet verify` said VERIFIED.
    let f = fleet();
    let stripped = stripped_record(&f);
    let root = f.root("node-1");
    let (a, b) = (
        root.join("model-00010-of-00096.safetensors"),
        root.join("model-00011-of-00096.safetensors"),
    );
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    std::fs::write(&a, &bb).unwrap();
    std::fs::write(&b, &ba).unwrap();
    let (code, stdout, stderr) = proofpack(&[
        os("check"),
        root.as_os_str(),
        os("--manifest"),
        stripped.as_os_str(),
        os("--sizes-only"),
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains(REFUSAL), "{stderr}");
    assert!(!stdout.contains("OK"), "{stdout}");
    let out = f.report("node-1");
    let (code, _, stderr) = proofpack(&[
        os("host"),
        os("check"),
        root.as_os_str(),
        os("--weights"),
        stripped.as_os_str(),
        os("--sizes-only"),
        os("--host"),
        os("node-1"),
        os("--run"),
        os(RUN),
        os("--fleet"),
        f.fleet_file().as_os_str(),
        os("--key"),
        f.key("node-1").as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(REFUSAL), "{stderr}");
    assert!(!out.exists(), "no report is signed");
    // fleet verify: reports made against the full record, verified against
    // the stripped one, or against a bare digest.
    for h in HOSTS {
        f.check(h, "--sizes-only");
    }
    let mut g = f;
    g.record = Some(stripped.clone());
    let o = g.verify(&g.all_reports(), "sizes-only");
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(o.stdout.contains(REFUSAL), "{}", o.stdout);
    g.record = None;
    let o = g.verify(&g.all_reports(), "sizes-only");
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stdout
            .contains("--mode sizes-only needs the weights record"),
        "{}",
        o.stdout
    );
    // With the record, node-1's swapped shards fail its own report.
    g.record = Some(g.manifest.clone());
    let o = g.verify(&g.all_reports(), "sizes-only");
    o.assert_fails(
        "host:node-1.passed",
        "shard.header_sha256:model-00010-of-00096.safetensors",
    );
}

#[test]
fn host_check_for_a_host_outside_its_fleet_is_refused() {
    let f = fleet();
    let out = f.report("node-7");
    let (code, _, stderr) = proofpack(&[
        os("host"),
        os("check"),
        f.root("node-0").as_os_str(),
        os("--weights"),
        f.manifest.as_os_str(),
        os("--host"),
        os("node-7"),
        os("--run"),
        os(RUN),
        os("--fleet"),
        f.fleet_file().as_os_str(),
        os("--key"),
        f.key("node-0").as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("does not select this host"), "{stderr}");
    assert!(!out.exists());
}

// ------------------------------------------------ fleet verify

#[test]
fn fleet_verify_holds_reports_to_the_fleet_file_the_run_and_the_record() {
    let f = fleet();
    for h in HOSTS {
        assert_eq!(f.check(h, "--full"), 0);
    }
    f.verify(&f.all_reports(), "full").assert_ok();
    // Another fleet file than the reports were made for.
    let before = std::fs::read(f.fleet_file()).unwrap();
    let mut other: Value = serde_json::from_slice(&before).unwrap();
    other["note"] = json!("edited");
    std::fs::write(f.fleet_file(), serde_json::to_vec(&other).unwrap()).unwrap();
    f.verify(&f.all_reports(), "full")
        .assert_fails("host:node-0.fleet", "the report is of another fleet");
    std::fs::write(f.fleet_file(), &before).unwrap();
    // --run names another run.
    let (fleet, trust) = (f.fleet_file(), f.trust());
    let mut args = vec![os("fleet"), os("verify")];
    let reports = f.all_reports();
    args.extend(reports.iter().map(|r| r.as_os_str()));
    args.extend([
        os("--fleet"),
        fleet.as_os_str(),
        os("--trust"),
        trust.as_os_str(),
        os("--weights-pin"),
        os(&f.pin),
        os("--weights-record"),
        f.manifest.as_os_str(),
        os("--run"),
        os("another-run"),
        os("--json"),
    ]);
    Outcome::of(&args).assert_fails("host:node-2.run", "not this run");
    // A report that lies about its totals, re-signed with its host key.
    let path = f.report("node-3");
    let mut st = statement(&path);
    st["predicate"]["files"] = json!(1);
    std::fs::write(
        &path,
        gen::sign_envelope(&st, &[&gen::test_key("host node-3")]),
    )
    .unwrap();
    f.verify(&f.all_reports(), "full")
        .assert_fails("host:node-3.totals", "states 1 files");
    // With a bare digest there is no record: the hosts must agree.
    let mut g = f;
    g.record = None;
    let o = g.verify(&g.all_reports(), "full");
    o.assert_only_failures(&["hosts.agree"]);
    o.assert_fails("hosts.agree", "node-0, node-1, node-2 vs node-3");
}

#[test]
fn fleet_verify_refuses_a_record_of_other_weights_than_the_pin() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--sizes-only");
    }
    let mut g = f;
    g.pin = "ab".repeat(32);
    let o = g.verify(&g.all_reports(), "sizes-only");
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stdout.contains("not of the pinned weights manifest"),
        "{}",
        o.stdout
    );
}
