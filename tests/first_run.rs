//! The first run of each kind of user, through the binary: a file of the
//! wrong kind is named with the fix, `verify` without `--trust` cannot run
//! (exit 2), a trust file without host keys says so once, an empty manifest
//! is refused where a model is expected, `manifest -o` inside the hashed
//! tree is refused, `unpack -C` creates a missing directory (and removes it
//! when nothing was unpacked), `attest verify --role host` checks one host's
//! report, `host check` and `fleet verify` share one default mode, renamed
//! flags keep their old spellings, `--help` puts the global flags under
//! their own heading, and every man page has EXIT STATUS and EXAMPLES.

mod fleet_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use fleet_support::qualify_support::common::output_ok;
use fleet_support::qualify_support::{proofpack, trust_of, verify_with};
use fleet_support::*;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample")
}

fn bundle() -> PathBuf {
    sample().join("kimi-k3-mi355x-20260923-sample.tgz")
}

fn run(args: &[&Path]) -> (i32, String, String) {
    let a: Vec<&OsStr> = args.iter().map(|p| p.as_os_str()).collect();
    proofpack(&a)
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

/// Exit 2 and every `needles` in stderr.
fn refused(args: &[&Path], needles: &[&str]) {
    let (code, _, stderr) = run(args);
    assert_eq!(code, 2, "{args:?}: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{args:?}: {n:?} not in: {stderr}");
    }
}

#[test]
fn a_file_of_the_wrong_kind_is_named_with_how_the_right_one_is_made() {
    let s = sample();
    let (b, trust, pins, writeup) = (
        bundle(),
        s.join("trust.json"),
        s.join("pins.json"),
        s.join("PUBLICATION.md"),
    );
    let (engine_pub, engine_key) = (
        s.join("keys/TEST-ONLY-engine.pub"),
        s.join("keys/TEST-ONLY-engine.key"),
    );
    let weights = s.join("weights");
    let make_trust = "a trust file is made with `proofpack key trust";
    refused(
        &[p("verify"), &b, p("--trust"), &engine_pub],
        &["this is a public key", make_trust],
    );
    refused(
        &[p("verify"), &b, p("--trust"), &engine_key],
        &["this is a private key", make_trust],
    );
    refused(
        &[p("verify"), &b, p("--trust"), &writeup],
        &["this is a published write-up", "given with --publication"],
    );
    refused(
        &[p("verify"), &b, p("--trust"), &pins],
        &["this is a pins file", "given with --pins"],
    );
    refused(
        &[p("verify"), &b, p("--trust"), &trust, p("--pins"), &writeup],
        &[
            "not a pins file",
            "proofpack pins from-publication",
            "--publication",
        ],
    );
    refused(
        &[
            p("verify"),
            &b,
            p("--trust"),
            &trust,
            p("--publication"),
            &pins,
        ],
        &[
            "this is a pins file (proofpack/pins/v1), not a published write-up",
            "given with --pins",
        ],
    );
    refused(
        &[
            p("verify"),
            &b,
            p("--trust"),
            &trust,
            p("--publication"),
            &trust,
        ],
        &["this is a trust file", "not a published write-up"],
    );
    refused(
        &[p("check"), &weights, p("--manifest"), &weights],
        &[
            "is a directory",
            "proofpack manifest DIR -o FILE",
            "proofpack diff",
        ],
    );
    refused(
        &[p("check"), &weights, p("--manifest"), &trust],
        &["this is a trust file", "not a manifest"],
    );
    refused(
        &[p("check"), &weights, p("--manifest"), &engine_pub],
        &["this is a public key", "not a manifest"],
    );
    refused(
        &[p("key"), p("id"), &trust],
        &["this is a trust file", "not a public key"],
    );
    refused(
        &[p("key"), p("trust"), p("--engine"), &engine_key],
        &["this is a private key", "not a public key"],
    );
    refused(
        &[p("attest"), p("verify"), &b, p("--trust"), &engine_pub],
        &["this is a public key", make_trust],
    );
    let report =
        s.join("run/kimi-k3-mi355x-20260923-sample/hosts/mi355x-node-01.qual.example.dsse.json");
    refused(
        &[
            p("fleet"),
            p("verify"),
            &report,
            p("--fleet"),
            &trust,
            p("--trust"),
            &trust,
            p("--weights-manifest"),
            &s.join("run/kimi-k3-mi355x-20260923-sample/manifests/weights.manifest"),
        ],
        &["this is a trust file", "not a fleet file"],
    );
}

#[test]
fn a_broken_file_of_the_right_kind_keeps_its_parser_error() {
    // A trust file whose key id does not match its key is a trust file:
    // its own error, not a "wrong kind" guess.
    let d = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(sample().join("trust.json")).unwrap();
    let broken = text.replacen("9e8caf84", "00000000", 1);
    assert_ne!(text, broken);
    let t = d.path().join("trust.json");
    std::fs::write(&t, broken).unwrap();
    let (code, _, stderr) = run(&[p("verify"), &bundle(), p("--trust"), &t]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("keyid"), "{stderr}");
    assert!(!stderr.contains("this is a"), "{stderr}");
}

#[test]
fn verify_without_trust_cannot_run() {
    let (code, stdout, stderr) = run(&[p("verify"), &bundle()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "nothing was verified: {stdout}");
    assert!(
        stderr.contains("verify needs --trust")
            && stderr.contains("proofpack key trust")
            && stderr.contains("--structure-only"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&[
        p("verify"),
        &bundle(),
        p("--publication"),
        &sample().join("PUBLICATION.md"),
    ]);
    assert_eq!(code, 2, "{stderr}");
    // The structure alone needs no trust roots.
    let (code, _, stderr) = run(&[p("verify"), &bundle(), p("--structure-only")]);
    assert_eq!(code, 0, "{stderr}");
}

/// A trust file of the sample's keys with the given roles.
#[test]
fn a_trust_file_without_host_keys_is_one_failure_that_names_the_fix() {
    let d = tempfile::tempdir().unwrap();
    let s = sample();
    let writeup = s.join("PUBLICATION.md");
    // The auditor's guide before v1.1: engine and release keys only.
    let t = trust_of(d.path(), &[("engine", "engine"), ("release", "release")]);
    let o = verify_with(
        &bundle(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            t.as_os_str(),
        ],
    );
    // The write-up's launch-check sentence depends on the host checks: it is
    // not checkable because of host:*, not a cause of its own.
    o.assert_only_failures(&["host:*", "publication:statement:20.1"]);
    let st = o.check("publication:statement:20.1");
    assert_eq!(
        (st["reason"].as_str(), st["cause"].as_str()),
        (Some("not_checkable"), Some("host:*")),
        "{st}"
    );
    let host = o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "host:*")
        .unwrap();
    let detail = host["detail"].as_str().unwrap();
    assert!(
        detail.contains("no key trusted for host") && detail.contains("--host HOST.pub"),
        "{detail}"
    );
    // The host key trusted for another role only does not count either.
    let d2 = tempfile::tempdir().unwrap();
    let t = trust_of(
        d2.path(),
        &[
            ("engine", "engine"),
            ("release", "release"),
            ("engine", "host"),
        ],
    );
    verify_with(
        &bundle(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            t.as_os_str(),
        ],
    )
    .assert_only_failures(&["host:*", "publication:statement:20.1"]);
    // With the host key the sample verifies.
    let d3 = tempfile::tempdir().unwrap();
    let t = trust_of(
        d3.path(),
        &[
            ("engine", "engine"),
            ("release", "release"),
            ("host", "host"),
        ],
    );
    let o = verify_with(
        &bundle(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            t.as_os_str(),
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stdout);
    // fleet verify cannot answer without a host key at all: exit 2.
    let d4 = tempfile::tempdir().unwrap();
    let t = trust_of(d4.path(), &[("engine", "engine"), ("release", "host")]);
    let f = fleet();
    assert_eq!(f.check("node-0", "--full"), 0);
    let hex = f.digest.clone();
    refused(
        &[
            p("fleet"),
            p("verify"),
            &f.report("node-0"),
            p("--fleet"),
            &f.fleet_file(),
            p("--trust"),
            &t,
            p("--weights-manifest"),
            p(&hex),
        ],
        &["no key is trusted for role host", "--host HOST.pub"],
    );
}

#[test]
fn an_empty_manifest_is_refused_where_a_model_is_expected() {
    let f = fleet();
    let empty = f.dir.path().join("empty.manifest");
    std::fs::write(&empty, "").unwrap();
    let root = f.root("node-0");
    refused(
        &[p("check"), &root, p("--manifest"), &empty],
        &["the manifest is empty"],
    );
    let out = f.dir.path().join("empty-report.dsse.json");
    refused(
        &[
            p("host"),
            p("check"),
            &root,
            p("--weights-manifest"),
            &empty,
            p("--host"),
            p("node-0"),
            p("--run"),
            p(RUN),
            p("--fleet"),
            &f.fleet_file(),
            p("--key"),
            &f.key("node-0"),
            p("-o"),
            &out,
        ],
        &["the manifest is empty"],
    );
    assert!(!out.exists(), "no report is signed for an empty manifest");
    // A fleet pinned to the digest of nothing: the digest, or the file.
    assert_eq!(f.check("node-0", "--full"), 0);
    let nothing = format!(
        "sha256:{}",
        proofpack::digest::Sha256Digest::of_bytes(b"").to_hex()
    );
    for pin in [Path::new(&nothing), empty.as_path()] {
        refused(
            &[
                p("fleet"),
                p("verify"),
                &f.report("node-0"),
                p("--fleet"),
                &f.fleet_file(),
                p("--trust"),
                &f.trust(),
                p("--weights-manifest"),
                pin,
            ],
            &["the manifest is empty"],
        );
    }
}

#[test]
fn manifest_output_inside_the_hashed_tree_is_refused_unless_excluded() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("weights");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::write(tree.join("a.bin"), "a").unwrap();
    std::fs::write(tree.join("sub/b.bin"), "b").unwrap();
    for out in [tree.join("weights.manifest"), tree.join("sub/x.manifest")] {
        refused(
            &[p("manifest"), &tree, p("-o"), &out],
            &["inside the tree being hashed", "--exclude"],
        );
        assert!(!out.exists());
    }
    refused(
        &[
            p("manifest"),
            &tree,
            p("--partition"),
            p("1/1"),
            p("-o"),
            &tree.join("part.json"),
        ],
        &["inside the tree being hashed"],
    );
    // Through a path that reaches the tree another way.
    refused(
        &[
            p("manifest"),
            &tree,
            p("-o"),
            &tree.join("sub/../w.manifest"),
        ],
        &["inside the tree being hashed"],
    );
    // Left out by --exclude, it is allowed, and not listed.
    let out = tree.join("weights.manifest");
    let (code, _, stderr) = run(&[
        p("manifest"),
        &tree,
        p("--exclude"),
        p("weights.manifest"),
        p("-o"),
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    let (code, _, stderr) = run(&[
        p("check"),
        &tree,
        p("--manifest"),
        &out,
        p("--exclude"),
        p("weights.manifest"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // Outside the tree, as always.
    let (code, _, stderr) = run(&[p("manifest"), &tree, p("-o"), &d.path().join("w.manifest")]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn unpack_creates_a_missing_directory_and_leaves_none_behind_on_failure() {
    let d = tempfile::tempdir().unwrap();
    let new = d.path().join("new");
    let (code, _, stderr) = run(&[p("unpack"), &bundle(), p("-C"), &new]);
    assert_eq!(code, 0, "{stderr}");
    assert!(new
        .join("kimi-k3-mi355x-20260923-sample/qualification.json")
        .exists());
    // A damaged bundle into a new directory: exit 1, no directory left.
    let bad = d.path().join("bad.tgz");
    let mut bytes = std::fs::read(bundle()).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x01;
    std::fs::write(&bad, bytes).unwrap();
    let new2 = d.path().join("new2");
    let (code, _, stderr) = run(&[p("unpack"), &bad, p("-C"), &new2]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        !new2.exists(),
        "the directory created for the unpack is removed"
    );
    refused(
        &[p("unpack"), &bundle(), p("-C"), &d.path().join("missing/x")],
        &["neither it nor its parent", "mkdir -p"],
    );
    let file = d.path().join("file");
    std::fs::write(&file, "x").unwrap();
    refused(
        &[p("unpack"), &bundle(), p("-C"), &file],
        &["is not a directory"],
    );
}

/// `attest verify REPORT --trust TRUST --role host [extra]` of host `h`.
fn attest_host(f: &Fleet, h: &str, extra: &[&str]) -> (i32, String, String) {
    let (report, trust) = (f.report(h), f.trust());
    let mut args: Vec<&Path> = vec![
        p("attest"),
        p("verify"),
        &report,
        p("--trust"),
        &trust,
        p("--role"),
        p("host"),
    ];
    args.extend(extra.iter().map(|e| p(e)));
    run(&args)
}

#[test]
fn attest_verify_role_host_checks_one_host_report() {
    let f = fleet();
    assert_eq!(f.check("node-0", "--full"), 0);
    let (code, stdout, stderr) = attest_host(&f, "node-0", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("host check: node-0 full"), "{stdout}");
    // Forged: a correctly signed report of a check that failed (one shard
    // truncated on the host). Signed is not passed: exit 1.
    let shard = f.root("node-1").join("model-00007-of-00096.safetensors");
    let len = std::fs::metadata(&shard).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap()
        .set_len(len - 1)
        .unwrap();
    assert_eq!(f.check("node-1", "--full"), 1);
    let (code, stdout, stderr) = attest_host(&f, "node-1", &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty(), "nothing verified is printed: {stdout}");
    assert!(
        stderr.contains("records a failed launch check on host node-1"),
        "{stderr}"
    );
    let (code, stdout, _) = attest_host(&f, "node-1", &["--json"]);
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let hc = j["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "host_check")
        .unwrap();
    assert_eq!(hc["ok"], false);
    assert_eq!(j["ok"], false);
    // A host report signed by the engine key does not verify for host.
    assert_eq!(f.check_as("node-2", "engine", "--full"), 0);
    assert_eq!(attest_host(&f, "node-2", &[]).0, 1);
}

#[test]
fn host_check_and_fleet_verify_share_the_default_mode() {
    let f = fleet();
    // host check with no mode flag, fleet verify with no --mode: they agree.
    for h in HOSTS {
        let (code, _, stderr) = run(&[
            p("host"),
            p("check"),
            &f.root(h),
            p("--weights-manifest"),
            &f.manifest,
            p("--config"),
            &f.config,
            p("--host"),
            p(h),
            p("--run"),
            p(RUN),
            p("--fleet"),
            &f.fleet_file(),
            p("--key"),
            &f.key(h),
            p("-o"),
            &f.report(h),
        ]);
        assert_eq!(code, 0, "{stderr}");
    }
    let reports = f.all_reports();
    let mut args: Vec<&Path> = vec![p("fleet"), p("verify")];
    args.extend(reports.iter().map(PathBuf::as_path));
    let fleet_file = f.fleet_file();
    let trust = f.trust();
    // --weights-manifest takes the manifest file itself (its digest).
    args.extend([
        p("--fleet"),
        &fleet_file,
        p("--trust"),
        &trust,
        p("--weights-manifest"),
        &f.manifest,
    ]);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("checked full at least"), "{stderr}");
    // A sizes-only report against the default requirement: the failure says
    // which mode it found and which flag changes the requirement.
    assert_eq!(f.check("node-3", "--sizes-only"), 0);
    let o = f.verify(&reports, "full");
    o.assert_only_failures(&["host:node-3.mode"]);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 1, "{stderr}");
    let (_, stdout, _) = run(&args);
    assert!(
        stdout.contains("made in mode sizes-only, but mode full is required")
            && stdout.contains("--mode sizes-only")
            && stdout.contains("host check --full"),
        "{stdout}"
    );
    assert_eq!(f.verify(&reports, "sizes-only").code, 0);
}

/// True when `--help` lists `flag` as an option (a hidden alias is not
/// listed, though the flag's text may name it).
fn listed(help: &str, flag: &str) -> bool {
    help.lines().any(|l| l.trim_start().starts_with(flag))
}

#[test]
fn renamed_flags_keep_their_old_spellings_hidden() {
    let (_, help, _) = run(&[p("fleet"), p("verify"), p("--help")]);
    assert!(
        help.contains("--weights-manifest") && help.contains("--config"),
        "{help}"
    );
    assert!(
        !listed(&help, "--weights-pin") && !listed(&help, "--config-pin"),
        "{help}"
    );
    let (_, help, _) = run(&[p("host"), p("check"), p("--help")]);
    assert!(help.contains("--weights-manifest"), "{help}");
    assert!(!listed(&help, "--weights <"), "{help}");
    let (_, help, _) = run(&[p("results"), p("check"), p("--help")]);
    assert!(help.contains("--results-format"), "{help}");
    // The old spellings still work (fleet_support uses --weights,
    // --weights-pin and --config-pin throughout).
    let f = fleet();
    assert_eq!(f.check("node-0", "--full"), 0);
    let o = f.verify(&[f.report("node-0")], "full");
    assert!(o.stdout.contains("host:node-0"), "{}", o.stdout);
    let failed = o.failed_ids();
    // node-1..3 have no report: the host check and its nine sub-checks
    // (v1.1: run, fleet, time, totals, shards besides the four) each.
    assert_eq!(failed.len(), 30, "{failed:?}");
    assert!(
        failed.iter().all(|id| !id.starts_with("host:node-0")),
        "{failed:?}"
    );
}

#[test]
fn help_lists_a_verbs_own_flags_before_the_global_ones() {
    for verb in [
        &["check"][..],
        &["verify"],
        &["fleet", "verify"],
        &["manifest"],
    ] {
        let mut args: Vec<&Path> = verb.iter().map(|v| p(v)).collect();
        args.push(p("--help"));
        let (code, help, _) = run(&args);
        assert_eq!(code, 0);
        let global = help
            .find("Global options:")
            .unwrap_or_else(|| panic!("{help}"));
        let own = help.find("Options:").unwrap();
        assert!(own < global, "{help}");
        for g in ["--quiet", "--verbose", "--catalog <PATH>", "--no-catalog"] {
            let at = help.find(g).unwrap_or_else(|| panic!("{g}: {help}"));
            assert!(
                at > global,
                "{g} is listed before the global heading: {help}"
            );
        }
    }
    let (_, help, _) = run(&[p("verify"), p("--help")]);
    let at = |f: &str| help.find(f).unwrap_or_else(|| panic!("{f}: {help}"));
    assert!(
        at("--publication") < at("--pins") && at("--pins") < at("--trust"),
        "{help}"
    );
}

#[test]
fn every_man_page_has_exit_status_and_examples_and_names_only_existing_pages() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&[p("man"), p("-o"), d.path()]);
    assert_eq!(code, 0, "{stderr}");
    let mut pages: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(pages.len() > 30, "{pages:?}");
    assert!(!pages.iter().any(|p| p.contains("help")), "{pages:?}");
    for page in &pages {
        let out = output_ok(
            Command::new("man")
                .arg("-l")
                .arg(d.path().join(page))
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "100"),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        for section in ["EXIT STATUS", "EXAMPLES", "NAME", "SYNOPSIS"] {
            assert!(text.contains(section), "{page}: no {section}\n{text}");
        }
        let examples = &text[text.find("EXAMPLES").unwrap()..];
        assert!(examples.contains("proofpack "), "{page}: {examples}");
        // Every page the roff source names as NAME(1) exists.
        let roff = std::fs::read_to_string(d.path().join(page))
            .unwrap()
            .replace("\\-", "-");
        for (i, _) in roff.match_indices("(1)") {
            let start = roff[..i]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |s| s + 1);
            let name = &roff[start..i];
            assert!(
                pages.contains(&format!("{name}.1")),
                "{page} refers to {name:?}(1), which is not generated"
            );
        }
    }
    // Without -o the top page is printed.
    let (code, stdout, _) = run(&[p("man")]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("EXIT STATUS") && stdout.contains("EXAMPLES"),
        "{stdout}"
    );
}
