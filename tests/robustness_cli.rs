//! Issue 10 items outside the bundle reader, each reproduced through the
//! binary: a clean exit (1 or 2 as the contract says, never a panic's 101),
//! one cause reported once, and inputs of other tools read.

mod qualify_support;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use qualify_support::*;
use serde_json::{json, Value};

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

#[test]
fn non_ascii_time_in_a_signed_engine_predicate() {
    let c = fresh();
    resign(&c, 1, &gen::engine_key(), |st| {
        st["predicate"]["launched_at"] = json!("2026-09-23T10:00:0\u{e9}0Z");
    });
    let o = c.verify_sealed();
    assert_ne!(o.code, 101, "{}", o.stdout);
    // The unreadable signed predicate is one cause (engine_id); the
    // checks that need its fields are not checkable because of it.
    o.assert_fails("attestation:engine-1.engine_id", "not an RFC 3339 UTC time");
    let l = o.check("attestation:engine-1.launched_at");
    assert_eq!(l["cause"], "attestation:engine-1.engine_id", "{l}");
}

#[test]
fn non_ascii_time_in_a_seal() {
    let c = fresh();
    c.seal();
    // A seal Statement signed by the trusted release key, with a sealed_at
    // that is not ASCII.
    let bundle = std::fs::read(c.bundle_path()).unwrap();
    let v = proofpack::bundle::verify_bundle(
        &c.bundle_path(),
        &proofpack::bundle::Limits::default(),
        None,
        &proofpack::progress::NoProgress,
    )
    .unwrap();
    let st = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [
            {"name": "b.tgz", "digest": {"sha256": proofpack::digest::Sha256Digest::of_bytes(&bundle).to_hex()}},
            {"name": "MANIFEST", "digest": {"sha256": v.manifest.unwrap().digest().to_hex()}}
        ],
        "predicateType": "urn:proofpack:predicate:seal:v1",
        "predicate": {"files": 15, "bytes": 1, "sealed_at": "2026-09-23T12:00:\u{e9}0Z"}
    });
    std::fs::write(
        format!("{}.seal.dsse.json", c.bundle_path().display()),
        gen::sign_envelope(&st, &[&gen::release_key()]),
    )
    .unwrap();
    let pins = c.pins(None, |_| {});
    let o = verify(&c.bundle_path(), Some(&pins), Some(&c.trust()));
    assert_eq!(o.code, 1, "{}", o.stdout);
    o.assert_fails("seal", "sealed_at");
    // Without trust the structure check reads the same time.
    let o = verify_with(&c.bundle_path(), &[os("--structure-only")]);
    o.assert_fails("seal.structure", "sealed_at");
}

#[test]
fn non_ascii_launched_at_flag() {
    let c = fresh();
    gen::write_keys(c.dir.path(), "k", &gen::engine_key());
    let key = c.dir.path().join("k.key");
    let (code, _, stderr) = proofpack(&[
        os("attest"),
        os("engine"),
        os("--key"),
        key.as_os_str(),
        os("--engine-id"),
        os("engine-0"),
        os("--engine-name"),
        os("vllm"),
        os("--engine-version"),
        os("1"),
        os("--image"),
        os(&c.sample.image.prefixed()),
        os("--model"),
        os("m"),
        os("--accelerator"),
        os("MI355X"),
        os("--accelerator-count"),
        os("8"),
        os("--parallelism"),
        os("tensor=8"),
        os("--host"),
        os("h"),
        os("--weights-manifest"),
        os(&c.sample.weights_manifest.prefixed()),
        os("--config"),
        os(&c.sample.config.prefixed()),
        os("--launched-at"),
        os("2026-09-23T10:00:0\u{e9}0Z"),
        os("-o"),
        c.dir.path().join("e.dsse.json").as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not an RFC 3339 UTC time"), "{stderr}");
    assert!(!c.dir.path().join("e.dsse.json").exists());
}

#[test]
fn one_malformed_client_record_is_one_cause() {
    let c = fresh();
    c.edit_lines(C05, |lines| lines[7] = "{\"request_id\": \"broken\"".into());
    let o = c.verify_sealed();
    o.assert_fails("point:rate-0.5.records", "client.jsonl:8");
    // Everything that needs the records says so, and blames nothing else.
    for id in [
        "point:rate-0.5.count",
        "point:rate-0.5.journal.orphans",
        "point:rate-0.5.claim.ttft_s.p50",
        "point:rate-0.5.within_limits",
    ] {
        o.assert_fails(id, "not checkable");
        o.assert_fails(id, "see point:rate-0.5.records");
    }
    let text = o.check("point:rate-0.5.journal.orphans").to_string();
    assert!(!text.contains("has no client record"), "{text}");
    assert_eq!(
        o.report["summary"]["failed"].as_u64().unwrap()
            - o.report["summary"]["not_checkable"].as_u64().unwrap(),
        1
    );
    assert!(o.report["verdict"]
        .as_str()
        .unwrap()
        .contains("(1 cause(s): point:rate-0.5.records;"));
}

#[test]
fn seal_path_that_is_a_directory_is_exit_1() {
    let c = fresh();
    c.seal();
    let seal = format!("{}.seal.dsse.json", c.bundle_path().display());
    std::fs::remove_file(&seal).unwrap();
    std::fs::create_dir(&seal).unwrap();
    let o = verify(&c.bundle_path(), None, Some(&c.trust()));
    o.assert_fails("seal", "not a regular file");
    let o = verify_with(&c.bundle_path(), &[os("--structure-only")]);
    o.assert_fails("seal", "not a regular file");
}

#[test]
fn attest_verify_rejects_a_signed_but_invalid_engine_predicate() {
    let c = fresh();
    // Signed by the trusted engine key, but accelerator.count is 0.
    resign(&c, 0, &gen::engine_key(), |st| {
        st["predicate"]["accelerator"]["count"] = json!(0);
    });
    let env = c.path("attestations/engine-0.dsse.json");
    let (code, _, stderr) = proofpack(&[
        os("attest"),
        os("verify"),
        env.as_os_str(),
        os("--trust"),
        c.trust().as_os_str(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("predicate is not valid") && stderr.contains("accelerator.count"),
        "{stderr}"
    );
    let (code, stdout, _) = proofpack(&[
        os("attest"),
        os("verify"),
        env.as_os_str(),
        os("--trust"),
        c.trust().as_os_str(),
        os("--json"),
    ]);
    assert_eq!(code, 1);
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["ok"], json!(false));
    // `verify` gives the same answer.
    let o = c.verify_sealed();
    o.assert_fails("attestation:engine-0.engine_id", "accelerator.count");
}

#[test]
fn crlf_client_records_and_journal_are_read() {
    let c = fresh();
    for f in [C05, J] {
        let t = std::fs::read_to_string(c.path(f)).unwrap();
        std::fs::write(c.path(f), t.replace('\n', "\r\n")).unwrap();
    }
    c.verify_sealed().assert_ok();
    // A blank line is still an error naming its line, "\r\n" or not.
    let t = std::fs::read_to_string(c.path(C05)).unwrap();
    let mut lines: Vec<&str> = t.split_inclusive("\r\n").collect();
    lines.insert(3, "\r\n");
    std::fs::write(c.path(C05), lines.concat()).unwrap();
    c.verify_sealed()
        .assert_fails("point:rate-0.5.records", "client.jsonl:4: blank line");
}

#[test]
fn exclude_matches_a_name_that_is_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("good.txt"), "x").unwrap();
    let bad = OsStr::from_bytes(b"bad-\xff.bin");
    std::fs::write(d.path().join(bad), "y").unwrap();
    let (code, _, stderr) = proofpack(&[os("manifest"), d.path().as_os_str()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    let (code, stdout, stderr) = proofpack(&[
        os("manifest"),
        d.path().as_os_str(),
        os("--exclude"),
        os("*.bin"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("good.txt:"), "{stdout}");
}

#[test]
fn manifest_files_of_a_bundle_are_not_held_in_memory() {
    // 4 x 32 MiB under manifests/: v1 kept every one whole (2.6 GB RSS for
    // a 4.7 MB bundle of this kind).
    let c = fresh();
    for k in 0..4 {
        let mut text = String::with_capacity(33 << 20);
        let mut i = 0u64;
        while text.len() < 32 << 20 {
            text.push_str(&format!("m{k}/{i:08}.safetensors:{i:064x}\n"));
            i += 1;
        }
        std::fs::write(c.path(&format!("manifests/extra-{k}.manifest")), text).unwrap();
    }
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let bundle = c.bundle_path();
    let (code, stdout, stderr, peak_kib) = proofpack_measured(&[
        os("verify"),
        bundle.as_os_str(),
        os("--pins"),
        pins.as_os_str(),
        os("--trust"),
        c.trust().as_os_str(),
        os("--json"),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        peak_kib < 64 << 10,
        "verify peaked at {peak_kib} KiB for 128 MiB of manifests"
    );
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let c = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "run.limit:captured_bytes")
        .unwrap();
    assert_eq!(c["ok"], json!(true), "{c}");
}
