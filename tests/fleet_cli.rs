//! `host check` and `fleet verify` end to end (issue 12): four host roots,
//! four host keys, four signed reports, one fleet verdict; then each way a
//! fleet can be wrong fails with its own check id and the host named.

mod fleet_support;

use std::path::PathBuf;

use fleet_support::qualify_support::*;
use fleet_support::*;
use serde_json::{json, Value};

pub fn truncate_a_shard(f: &Fleet, h: &str) {
    let shard = f.root(h).join("model-00042-of-00096.safetensors");
    let len = std::fs::metadata(&shard).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap()
        .set_len(len - 3)
        .unwrap();
}

#[test]
fn four_hosts_four_keys_one_passing_fleet() {
    let f = fleet();
    for h in HOSTS {
        assert_eq!(f.check(h, "--full"), 0);
    }
    let o = f.verify(&f.all_reports(), "full");
    o.assert_ok();
    let rows = o.report["hosts"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert!(rows
        .iter()
        .all(|r| r["ok"] == json!(true) && r["files"] == json!(96) && r["mode"] == json!("full")));
    // The report is an in-toto Statement of the host-check type.
    let env: Value = serde_json::from_slice(&std::fs::read(f.report("node-2")).unwrap()).unwrap();
    use base64::Engine as _;
    let st: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(env["payload"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        st["predicateType"],
        "urn:proofpack:predicate:host-check:v1.1"
    );
    assert_eq!(st["predicate"]["run"], RUN);
    assert_eq!(st["predicate"]["shards"].as_array().unwrap().len(), 96);
    assert_eq!(st["predicate"]["host"], "node-2");
    assert_eq!(st["subject"][0]["name"], "weights.manifest");
}

#[test]
fn truncated_shard_on_one_host_in_sizes_only_mode() {
    let f = fleet();
    truncate_a_shard(&f, "node-2");
    for h in HOSTS {
        let code = f.check(h, "--sizes-only");
        assert_eq!(code, if h == "node-2" { 1 } else { 0 }, "{h}");
    }
    let o = f.verify(&f.all_reports(), "sizes-only");
    // The shard headers of a check that failed are not compared (one cause).
    o.assert_only_failures(&["host:node-2.passed", "host:node-2.shards"]);
    o.assert_fails("host:node-2.passed", "model-00042-of-00096.safetensors");
}

/// v1.1: the sizes-only launch check reads the shard headers. Two shards of
/// equal size swapped under each other's names (node-1) and a shard whose
/// header is corrupt but whose size is right (node-3) passed a sizes-only
/// check that looked at sizes alone; now each host's signed report fails,
/// naming the shard and the rule, and the fleet fails for those hosts.
#[test]
fn swapped_shards_and_a_corrupt_header_fail_the_sizes_only_launch_check() {
    let f = fleet();
    let (a, b) = (
        f.root("node-1").join("model-00010-of-00096.safetensors"),
        f.root("node-1").join("model-00011-of-00096.safetensors"),
    );
    let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(ba.len(), bb.len(), "the forgery needs shards of equal size");
    assert_ne!(ba, bb);
    std::fs::write(&a, &bb).unwrap();
    std::fs::write(&b, &ba).unwrap();
    let c = f.root("node-3").join("model-00013-of-00096.safetensors");
    let mut bc = std::fs::read(&c).unwrap();
    assert_eq!(bc[8], b'{');
    bc[8] = b'[';
    std::fs::write(&c, &bc).unwrap();
    for h in HOSTS {
        let code = f.check(h, "--sizes-only");
        assert_eq!(code, i32::from(h == "node-1" || h == "node-3"), "{h}");
    }
    let o = f.verify(&f.all_reports(), "sizes-only");
    o.assert_only_failures(&[
        "host:node-1.passed",
        "host:node-1.shards",
        "host:node-3.passed",
        "host:node-3.shards",
    ]);
    o.assert_fails(
        "host:node-1.passed",
        "shard.header_sha256:model-00010-of-00096.safetensors",
    );
    o.assert_fails(
        "host:node-1.passed",
        "shard.header_sha256:model-00011-of-00096.safetensors",
    );
    o.assert_fails(
        "host:node-3.passed",
        "shard.header_json:model-00013-of-00096.safetensors",
    );
}

#[test]
fn changed_byte_caught_in_full_mode_and_not_claimed_by_sizes_only() {
    let f = fleet();
    let shard = f.root("node-1").join("model-00007-of-00096.safetensors");
    let mut b = std::fs::read(&shard).unwrap();
    let last = b.len() - 1;
    b[last] ^= 0xff;
    std::fs::write(&shard, b).unwrap();
    // Sizes-only passes, and says it checked sizes only.
    for h in HOSTS {
        assert_eq!(f.check(h, "--sizes-only"), 0);
    }
    let o = f.verify(&f.all_reports(), "full");
    o.assert_fails(
        "host:node-1.mode",
        "made in mode sizes-only, but mode full is required",
    );
    // A full check catches the byte.
    assert_eq!(f.check("node-1", "--full"), 1);
    for h in ["node-0", "node-2", "node-3"] {
        f.check(h, "--full");
    }
    let o = f.verify(&f.all_reports(), "full");
    o.assert_only_failures(&["host:node-1.passed", "host:node-1.shards"]);
    o.assert_fails("host:node-1.passed", "model-00007-of-00096.safetensors");
}

#[test]
fn missing_report() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--full");
    }
    let reports: Vec<PathBuf> = f
        .all_reports()
        .into_iter()
        .filter(|r| !r.ends_with("node-3.dsse.json"))
        .collect();
    let o = f.verify(&reports, "full");
    o.assert_fails("host:node-3", "no report for host node-3");
}

#[test]
fn report_for_a_host_outside_the_fleet() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--full");
    }
    copy_dir(
        &f.root("node-0"),
        &f.dir.path().join("hosts/node-9/weights"),
    );
    gen::write_keys(
        &f.dir.path().join("keys"),
        "node-9",
        &gen::test_key("host node-0"),
    );
    // node-9's own check is made for a fleet that holds it.
    let fleet = std::fs::read(f.fleet_file()).unwrap();
    std::fs::write(
        f.fleet_file(),
        serde_json::to_vec(&json!({"hosts": [{"name": "node-9"}]})).unwrap(),
    )
    .unwrap();
    f.check("node-9", "--full");
    std::fs::write(f.fleet_file(), fleet).unwrap();
    let mut reports = f.all_reports();
    reports.push(f.report("node-9"));
    f.verify(&reports, "full")
        .assert_fails("hosts.outside", "report for host node-9");
}

#[test]
fn report_signed_by_an_untrusted_key_or_an_engine_key() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--full");
    }
    gen::write_keys(
        &f.dir.path().join("keys"),
        "stranger",
        &gen::test_key("stranger"),
    );
    f.check_as("node-1", "stranger", "--full");
    f.verify(&f.all_reports(), "full").assert_fails(
        "host:node-1",
        "does not verify under a key trusted for host",
    );
    f.check_as("node-1", "engine", "--full");
    f.verify(&f.all_reports(), "full")
        .assert_fails("host:node-1", "trusted for [engine] but not for host");
}

#[test]
fn report_against_another_manifest_digest() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--full");
    }
    let mut o = f.verify(&f.all_reports(), "full");
    o.assert_ok();
    // Pin another digest: every report checked against something else.
    let mut g = f;
    g.pin = "ab".repeat(32);
    g.record = None;
    o = g.verify(&g.all_reports(), "full");
    o.assert_fails("host:node-0.manifest", "not the pinned weights manifest");
}

#[test]
fn sizes_only_report_where_full_is_required() {
    let f = fleet();
    for h in HOSTS {
        f.check(
            h,
            if h == "node-3" {
                "--sizes-only"
            } else {
                "--full"
            },
        );
    }
    let o = f.verify(&f.all_reports(), "full");
    o.assert_only_failures(&["host:node-3.mode"]);
}

#[test]
fn two_reports_for_one_host() {
    let f = fleet();
    for h in HOSTS {
        f.check(h, "--full");
    }
    let copy = f.dir.path().join("reports/node-2-again.dsse.json");
    std::fs::copy(f.report("node-2"), &copy).unwrap();
    let mut reports = f.all_reports();
    reports.push(copy);
    f.verify(&reports, "full")
        .assert_fails("host:node-2", "2 reports for host node-2");
}

#[test]
fn fleet_hosts_read_from_a_qualified_fleet_file() {
    let f = fleet();
    std::fs::write(
        f.fleet_file(),
        serde_json::to_vec(&json!({"fleet": "x", "engines": HOSTS.iter().enumerate().map(|(i, h)| json!({"id": format!("engine-{i}"), "host": h})).collect::<Vec<_>>()})).unwrap(),
    )
    .unwrap();
    for h in HOSTS {
        f.check(h, "--full");
    }
    f.verify(&f.all_reports(), "full").assert_ok();
}

// ------------------------------------------------- inside a qualification

#[test]
fn qualification_host_reports_are_checked_by_verify() {
    let c = fresh();
    let o = c.verify_sealed();
    o.assert_ok();
    for i in 0..gen::ENGINES {
        assert_eq!(
            o.check(&format!("host:{}.passed", gen::host_name(i)))["ok"],
            json!(true)
        );
    }
}

#[test]
fn qualification_with_a_host_report_left_out() {
    let c = fresh();
    let gone = format!("hosts/{}.dsse.json", gen::host_name(2));
    std::fs::remove_file(c.path(&gone)).unwrap();
    c.edit_json("qualification.json", |q| {
        q["host_checks"]
            .as_array_mut()
            .unwrap()
            .retain(|h| h != &json!(gone));
    });
    c.verify_sealed()
        .assert_fails(&format!("host:{}", gen::host_name(2)), "no report for host");
}

#[test]
fn qualification_host_report_of_a_failed_check() {
    // The host's check failed (a truncated shard) and its report says so.
    let c = fresh();
    let root = c.dir.path().join("bad-weights");
    copy_dir(&c.sample.weights, &root);
    let shard = root.join("model-00011-of-00096.safetensors");
    let len = std::fs::metadata(&shard).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap()
        .set_len(len - 1)
        .unwrap();
    let (code, _, stderr) = proofpack(&[
        os("manifest"),
        c.sample.weights.as_os_str(),
        os("--format"),
        os("json"),
        os("-o"),
        c.dir.path().join("w.json").as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    gen::write_keys(c.dir.path(), "host", &gen::host_key());
    let out = c.path(&format!("hosts/{}.dsse.json", gen::host_name(1)));
    let (code, _, stderr) = proofpack(&[
        os("host"),
        os("check"),
        root.as_os_str(),
        os("--weights"),
        c.dir.path().join("w.json").as_os_str(),
        os("--config"),
        c.path("inputs/config.json").as_os_str(),
        os("--host"),
        os(&gen::host_name(1)),
        os("--run"),
        os(gen::NAME),
        os("--fleet"),
        c.path("inputs/fleet-qualified.json").as_os_str(),
        os("--key"),
        c.dir.path().join("host.key").as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    c.verify_sealed().assert_fails(
        &format!("host:{}.passed", gen::host_name(1)),
        "model-00011-of-00096.safetensors",
    );
}
