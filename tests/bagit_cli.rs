//! BagIt through the binary: `unpack --bagit` writes a bag that bagit-python
//! (`bagit.py --validate`, pinned in scripts/requirements-test.txt)
//! validates, with the tag files the contract names; `verify BAG` checks
//! the bag's own manifests and then its data/ as a run. Every tamper that
//! bagit-python detects, proofpack detects too, naming the check; a
//! consistently re-written bag (which bagit-python accepts) fails on the
//! release seal the bag carries; and a bag bagit-python writes of a run
//! directory verifies as the run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::proofpack_out as proofpack;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sample");
const NAME: &str = "kimi-k3-mi355x-20260923-sample";

fn bundle() -> PathBuf {
    Path::new(SAMPLE).join(format!("{NAME}.tgz"))
}

fn trust() -> String {
    Path::new(SAMPLE).join("trust.json").display().to_string()
}

/// bagit-python's verdict on a bag: (valid, its log).
fn bagit_validate(bag: &Path) -> (bool, String) {
    let out = Command::new(common::python())
        .args(["-m", "bagit", "--validate"])
        .arg(bag)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn unpack_bag(dest: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "unpack".to_string(),
        bundle().display().to_string(),
        "--bagit".into(),
        "-C".into(),
        dest.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    proofpack(&args)
}

fn verify(bag: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "verify".to_string(),
        bag.display().to_string(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let (code, out, err) = proofpack(&args);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, v)
}

fn check<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}"))
}

fn failed(v: &Value) -> Vec<String> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn unpack_bagit_writes_a_bag_bagit_python_validates_and_verify_checks_it_as_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, out, err) = unpack_bag(tmp.path(), &[]);
    assert_eq!(code, 0, "{out}{err}");
    let bag = tmp.path().join(NAME);
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [NAME], "nothing but the bag is left in -C");
    let (valid, log) = bagit_validate(&bag);
    assert!(valid, "{log}");
    assert!(log.contains("is valid"), "{log}");

    // The tag files, against independent readings of the bundle.
    assert_eq!(
        read(&bag.join("bagit.txt")),
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
    );
    let sidecar = read(&Path::new(SAMPLE).join(format!("{NAME}.tgz.sha256")));
    let bundle_sha = sidecar.split_whitespace().next().unwrap();
    let info = read(&bag.join("bag-info.txt"));
    let mut bytes = 0u64;
    let mut files = 0u64;
    for e in walkdir::WalkDir::new(bag.join("data")) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            bytes += e.metadata().unwrap().len();
            files += 1;
        }
    }
    for line in [
        "Bag-Software-Agent: proofpack ".to_string(),
        "Bagging-Date: 2026-09-23\n".into(),
        format!("Payload-Oxum: {bytes}.{files}\n"),
        format!("Proofpack-Bundle-SHA256: {bundle_sha}\n"),
        format!("Proofpack-Root: {NAME}\n"),
        "Proofpack-Sealed-At: 2026-09-23T12:00:00Z\n".into(),
    ] {
        assert!(info.contains(&line), "{line:?} not in {info}");
    }
    // manifest-sha256.txt is MANIFEST's lines under data/ (MANIFEST itself is
    // not in the payload), as `manifest` of the payload gives them.
    assert!(!bag.join("data/MANIFEST").exists());
    let (code, canonical, _) = proofpack(&[
        "manifest".to_string(),
        bag.join("data").display().to_string(),
    ]);
    assert_eq!(code, 0);
    let from_manifest: Vec<String> = canonical
        .lines()
        .map(|l| {
            let (p, h) = l.rsplit_once(':').unwrap();
            format!("{h}  data/{p}")
        })
        .collect();
    let bag_lines: Vec<String> = read(&bag.join("manifest-sha256.txt"))
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(bag_lines, from_manifest);
    assert_eq!(
        std::fs::read(bag.join("proofpack-seal.dsse.json")).unwrap(),
        std::fs::read(Path::new(SAMPLE).join(format!("{NAME}.tgz.seal.dsse.json"))).unwrap()
    );
    let tagm = read(&bag.join("tagmanifest-sha256.txt"));
    for f in [
        "bagit.txt",
        "bag-info.txt",
        "manifest-sha256.txt",
        "proofpack-seal.dsse.json",
    ] {
        assert!(tagm.contains(&format!("  {f}\n")), "{tagm}");
    }

    // The same bundle gives the same bag, byte for byte.
    let again = tempfile::tempdir().unwrap();
    assert_eq!(unpack_bag(again.path(), &[]).0, 0);
    for f in [
        "bag-info.txt",
        "manifest-sha256.txt",
        "tagmanifest-sha256.txt",
    ] {
        assert_eq!(
            read(&bag.join(f)),
            read(&again.path().join(NAME).join(f)),
            "{f}"
        );
    }

    // verify BAG: the bag's checks, then the run.
    let (code, v) = verify(&bag, &["--trust", &trust()]);
    assert_eq!(code, 0, "{v}");
    assert!(
        v["verdict"].as_str().unwrap().starts_with("VERIFIED"),
        "{v}"
    );
    for id in [
        "bag.declaration",
        "bag.structure",
        "bag.manifest-sha256",
        "bag.oxum",
        "bag.tagmanifest-sha256",
        "bag.seal",
        "qualification.schema",
        "run.tree",
        "attestation:engine-0",
    ] {
        assert_eq!(check(&v, id)["ok"], true, "{id}: {}", check(&v, id));
    }
    assert!(check(&v, "bag.seal")["detail"]
        .as_str()
        .unwrap()
        .contains("(release)"));
    // Without --trust a bag is not verified at all (exit 2), as a bundle
    // or a run directory is not: a signature nobody trusts proves nothing.
    let (code, out, err) = proofpack(&["verify", bag.to_str().unwrap(), "--json"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("verify needs --trust"), "{err}");
}

#[test]
fn without_a_seal_the_bag_has_no_bagging_date_and_a_mismatched_seal_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let lone = tmp.path().join("lone");
    std::fs::create_dir(&lone).unwrap();
    let copy = lone.join(format!("{NAME}.tgz"));
    std::fs::copy(bundle(), &copy).unwrap();
    let dest = tmp.path().join("out");
    std::fs::create_dir(&dest).unwrap();
    let (code, out, err) = proofpack(&[
        "unpack".to_string(),
        copy.display().to_string(),
        "--bagit".into(),
        "-C".into(),
        dest.display().to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let bag = dest.join(NAME);
    let info = read(&bag.join("bag-info.txt"));
    assert!(!info.contains("Bagging-Date"), "{info}");
    assert!(!bag.join("proofpack-seal.dsse.json").exists());
    assert!(bagit_validate(&bag).0);
    let (code, v) = verify(&bag, &["--trust", &trust()]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(check(&v, "bag.seal")["ok"], Value::Null);

    // A seal of other bytes: seal.structure fails, exit 1, nothing written.
    let run = tmp.path().join("run");
    common::copy_tree(&Path::new(SAMPLE).join("run").join(NAME), &run);
    std::fs::write(run.join("notes.txt"), "another run\n").unwrap();
    let other = tmp.path().join("other.tgz");
    let (code, out, err) = proofpack(&[
        "seal".to_string(),
        run.display().to_string(),
        "-o".into(),
        other.display().to_string(),
        "--key".into(),
        Path::new(SAMPLE)
            .join("keys/TEST-ONLY-release.key")
            .display()
            .to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let dest2 = tmp.path().join("out2");
    std::fs::create_dir(&dest2).unwrap();
    let seal = format!("{}.seal.dsse.json", other.display());
    let (code, out, err) = unpack_bag(&dest2, &["--seal", &seal, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(failed(&v), ["seal.structure"]);
    assert!(check(&v, "seal.structure")["detail"]
        .as_str()
        .unwrap()
        .contains("does not match this bundle"));
    assert_eq!(
        std::fs::read_dir(&dest2).unwrap().count(),
        0,
        "nothing left"
    );
}

/// Writes a fresh bag of the sample into `dir`; its path.
fn fresh_bag(dir: &Path) -> PathBuf {
    assert_eq!(unpack_bag(dir, &[]).0, 0);
    dir.join(NAME)
}

fn sha256_hex(b: &[u8]) -> String {
    proofpack::digest::Sha256Digest::of_bytes(b).to_hex()
}

#[test]
fn every_tamper_bagit_python_detects_fails_verify_naming_the_check() {
    type Tamper = fn(&Path);
    let cases: [(&str, Tamper, &[&str]); 7] = [
        (
            "a payload byte changed",
            |b| {
                let p = b.join("data/router-journal.jsonl");
                let mut t = std::fs::read(&p).unwrap();
                t[10] ^= 1;
                std::fs::write(p, t).unwrap();
            },
            &["bag.manifest-sha256"],
        ),
        (
            "a payload file added",
            |b| std::fs::write(b.join("data/extra.txt"), "x").unwrap(),
            &["bag.manifest-sha256", "bag.oxum"],
        ),
        (
            "a payload file removed",
            |b| std::fs::remove_file(b.join("data/inputs/workload.json")).unwrap(),
            &["bag.manifest-sha256", "bag.oxum"],
        ),
        (
            "Payload-Oxum edited",
            |b| {
                let p = b.join("bag-info.txt");
                let t = read(&p).replace("Payload-Oxum: ", "Payload-Oxum: 1");
                std::fs::write(p, t).unwrap();
            },
            &["bag.oxum", "bag.tagmanifest-sha256"],
        ),
        (
            "a manifest line's digest edited",
            |b| {
                let p = b.join("manifest-sha256.txt");
                let t = read(&p);
                let t = format!("0{}", &t[1..]);
                std::fs::write(p, t).unwrap();
            },
            &["bag.manifest-sha256", "bag.tagmanifest-sha256"],
        ),
        (
            "a manifest line names a path outside data/",
            |b| {
                let p = b.join("manifest-sha256.txt");
                let t = read(&p) + &format!("{}  data/../bagit.txt\n", "0".repeat(64));
                std::fs::write(p, t).unwrap();
            },
            &["bag.manifest-sha256", "bag.tagmanifest-sha256"],
        ),
        (
            "a tag file edited",
            |b| {
                let p = b.join("bagit.txt");
                std::fs::write(
                    p,
                    "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n\n",
                )
                .unwrap();
            },
            &["bag.declaration", "bag.tagmanifest-sha256"],
        ),
    ];
    for (what, tamper, ids) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let bag = fresh_bag(tmp.path());
        tamper(&bag);
        let (valid, log) = bagit_validate(&bag);
        assert!(!valid, "{what}: bagit-python accepted it: {log}");
        let (code, v) = verify(&bag, &["--trust", &trust()]);
        assert_eq!(code, 1, "{what}: {v}");
        let f = failed(&v);
        for id in ids {
            assert!(
                f.contains(&id.to_string()),
                "{what}: {id} not failed: {f:?}"
            );
        }
        assert!(
            v["verdict"].as_str().unwrap().starts_with("FAILED"),
            "{what}"
        );
    }
}

#[test]
fn a_consistently_rewritten_bag_passes_bagit_python_but_fails_the_seal() {
    // The forger changes a record and writes every bag manifest anew:
    // bagit-python has nothing to object to, but the release seal the bag
    // carries names the MANIFEST the bundle was sealed with.
    let tmp = tempfile::tempdir().unwrap();
    let bag = fresh_bag(tmp.path());
    let p = bag.join("data/preflight.json");
    let t = read(&p);
    std::fs::write(&p, t.replacen('1', "2", 1)).unwrap();
    let lines: String = read(&bag.join("manifest-sha256.txt"))
        .lines()
        .map(|l| {
            let (_, path) = l.split_once("  ").unwrap();
            format!(
                "{}  {path}\n",
                sha256_hex(&std::fs::read(bag.join(path)).unwrap())
            )
        })
        .collect();
    std::fs::write(bag.join("manifest-sha256.txt"), &lines).unwrap();
    let tagm: String = [
        "bagit.txt",
        "bag-info.txt",
        "manifest-sha256.txt",
        "proofpack-seal.dsse.json",
    ]
    .iter()
    .map(|f| {
        format!(
            "{}  {f}\n",
            sha256_hex(&std::fs::read(bag.join(f)).unwrap())
        )
    })
    .collect();
    std::fs::write(bag.join("tagmanifest-sha256.txt"), tagm).unwrap();
    let (valid, log) = bagit_validate(&bag);
    assert!(valid, "{log}");
    let (code, v) = verify(&bag, &["--trust", &trust()]);
    assert_eq!(code, 1, "{v}");
    assert!(
        failed(&v).contains(&"bag.seal".to_string()),
        "{:?}",
        failed(&v)
    );
    for id in ["bag.manifest-sha256", "bag.oxum", "bag.tagmanifest-sha256"] {
        assert_eq!(check(&v, id)["ok"], true, "{id}");
    }
    assert!(check(&v, "bag.seal")["detail"]
        .as_str()
        .unwrap()
        .contains("MANIFEST"));
}

#[test]
fn structure_problems_proofpack_refuses() {
    type Tamper = fn(&Path);
    let cases: [(&str, Tamper, &str); 4] = [
        (
            "fetch.txt",
            |b| std::fs::write(b.join("fetch.txt"), "https://example.com/x 1 data/x\n").unwrap(),
            "bag.structure",
        ),
        (
            "a symlink in data/",
            |b| std::os::unix::fs::symlink("/etc/hostname", b.join("data/link")).unwrap(),
            "bag.structure",
        ),
        (
            "a percent-encoded path",
            |b| {
                let p = b.join("manifest-sha256.txt");
                let t = read(&p).replacen("data/preflight.json", "data/preflight%2Ejson", 1);
                std::fs::write(p, t).unwrap();
            },
            "bag.manifest-sha256",
        ),
        (
            "a repeated manifest line",
            |b| {
                let p = b.join("manifest-sha256.txt");
                let t = read(&p);
                let first = t.lines().next().unwrap().to_string();
                std::fs::write(p, format!("{t}{first}\n")).unwrap();
            },
            "bag.manifest-sha256",
        ),
    ];
    for (what, tamper, id) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let bag = fresh_bag(tmp.path());
        tamper(&bag);
        let (code, v) = verify(&bag, &["--trust", &trust()]);
        assert_eq!(code, 1, "{what}: {v}");
        assert!(
            failed(&v).contains(&id.to_string()),
            "{what}: {:?}",
            failed(&v)
        );
    }
}

#[test]
fn a_bag_bagit_python_writes_of_a_run_directory_verifies_as_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let bag = tmp.path().join("bag");
    common::copy_tree(&Path::new(SAMPLE).join("run").join(NAME), &bag);
    let out = Command::new(common::python())
        .args(["-m", "bagit", "--sha256", "--sha512"])
        .arg(&bag)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, v) = verify(&bag, &["--trust", &trust()]);
    assert_eq!(code, 0, "{v}");
    for id in [
        "bag.declaration",
        "bag.manifest-sha256",
        "bag.manifest-sha512",
        "bag.oxum",
        "bag.tagmanifest-sha256",
        "bag.tagmanifest-sha512",
    ] {
        assert_eq!(check(&v, id)["ok"], true, "{id}: {}", check(&v, id));
    }
    assert_eq!(check(&v, "bag.seal")["ok"], Value::Null);
    // Its SHA-512 manifest is checked too.
    let p = bag.join("manifest-sha512.txt");
    let t = read(&p);
    std::fs::write(&p, format!("0{}", &t[1..])).unwrap();
    let (code, v) = verify(&bag, &["--trust", &trust()]);
    assert_eq!(code, 1);
    assert!(failed(&v).contains(&"bag.manifest-sha512".to_string()));
}
