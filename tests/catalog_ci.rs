//! The catalog on a CI runner (v1.1): a read-only verb leaves no catalog
//! file behind; a missing baseline says to restore or import the committed
//! one, never to record the tree under test; `--record` (and `catalog
//! import`) over an existing name needs `--replace`; `catalog show` finds a
//! baseline by name; the hash-cache line is printed only with `-v`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::proofpack_at as bin;
use predicates::str::contains;

fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("model");
    fs::create_dir_all(&root).unwrap();
    for i in 0..3 {
        fs::write(
            root.join(format!("{i:05}.safetensors")),
            vec![i as u8; 100 + i],
        )
        .unwrap();
    }
    let cat = d.path().join("ci/catalog.db");
    (d, root, cat)
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// `manifest ROOT --record NAME` into the catalog `cat`, which must pass.
fn record(cat: &Path, root: &Path, name: &str) {
    bin(cat)
        .arg("manifest")
        .arg(root)
        .args(["--record", name])
        .assert()
        .success();
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample")
}

#[test]
fn read_only_verbs_create_no_catalog() {
    let (d, root, cat) = tree();
    let m = d.path().join("m.manifest");
    // manifest (without --record) writes its output, not a catalog.
    common::manifest_to(&cat, &root, &m);
    bin(&cat)
        .arg("check")
        .arg(&root)
        .arg("--manifest")
        .arg(&m)
        .assert()
        .success();
    bin(&cat).arg("diff").arg(&m).arg(&root).assert().success();
    let s = sample();
    bin(&cat)
        .arg("verify")
        .arg(s.join("kimi-k3-mi355x-20260923-sample.tgz"))
        .arg("--publication")
        .arg(s.join("PUBLICATION.md"))
        .arg("--trust")
        .arg(s.join("trust.json"))
        .assert()
        .success();
    bin(&cat)
        .args(["catalog", "list"])
        .assert()
        .success()
        .stderr(contains("does not exist"));
    bin(&cat)
        .args(["catalog", "info"])
        .assert()
        .success()
        .stdout(contains("does not exist"));
    bin(&cat).args(["catalog", "show", "kimi"]).assert().code(2);
    bin(&cat).args(["catalog", "export", "w"]).assert().code(2);
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:w"])
        .assert()
        .code(2);
    assert!(!cat.exists(), "a read-only verb created {}", cat.display());
    assert!(!cat.parent().unwrap().exists(), "nor its directory");
    // Storing something creates it.
    record(&cat, &root, "w");
    assert!(cat.exists());
    // Once it exists, verify records into it as before.
    bin(&cat)
        .arg("verify")
        .arg(s.join("kimi-k3-mi355x-20260923-sample.tgz"))
        .arg("--structure-only")
        .assert()
        .success();
    bin(&cat)
        .args(["catalog", "list"])
        .assert()
        .success()
        .stdout(contains("verify"));
}

#[test]
fn a_missing_baseline_says_restore_or_import_never_record() {
    let (d, root, cat) = tree();
    for state in ["no catalog", "no such baseline"] {
        if state == "no such baseline" {
            bin(&cat)
                .arg("manifest")
                .arg(&root)
                .args(["--record", "other"])
                .assert()
                .success();
        }
        let a = bin(&cat)
            .arg("check")
            .arg(&root)
            .args(["--manifest", "catalog:kimi-k3-weights"])
            .assert()
            .code(2);
        let e = stderr(&a);
        assert!(
            e.contains("catalog import kimi-k3-weights") && e.contains("restore"),
            "{state}: {e}"
        );
        assert!(
            !e.contains("--record"),
            "{state}: a CI failure must not advise recording the tree under test: {e}"
        );
        let a = bin(&cat)
            .arg("diff")
            .arg("catalog:kimi-k3-weights")
            .arg(&root)
            .assert()
            .code(2);
        assert!(stderr(&a).contains("catalog import"), "{}", stderr(&a));
    }
    // The advice works: import the committed file, the gate runs.
    let committed = d.path().join("kimi-k3.manifest");
    bin(&cat)
        .arg("manifest")
        .arg(&root)
        .arg("-o")
        .arg(&committed)
        .assert()
        .success();
    bin(&cat)
        .args(["catalog", "import", "kimi-k3-weights"])
        .arg(&committed)
        .assert()
        .success();
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:kimi-k3-weights"])
        .assert()
        .success();
}

#[test]
fn recording_over_an_existing_baseline_needs_replace() {
    let (d, root, cat) = tree();
    record(&cat, &root, "w");
    let before = bin(&cat)
        .args(["catalog", "export", "w"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // The tree drifts; recording it again under the same name is refused
    // before anything is hashed, and the baseline is unchanged.
    fs::write(root.join("00001.safetensors"), b"drifted").unwrap();
    let a = bin(&cat)
        .arg("manifest")
        .arg(&root)
        .args(["--record", "w"])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("--replace"), "{}", stderr(&a));
    let after = bin(&cat)
        .args(["catalog", "export", "w"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(before, after, "the baseline was not replaced");
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:w"])
        .assert()
        .code(1);
    // The same for import.
    let other = d.path().join("other.manifest");
    bin(&cat)
        .arg("manifest")
        .arg(&root)
        .arg("-o")
        .arg(&other)
        .assert()
        .success();
    bin(&cat)
        .args(["catalog", "import", "w"])
        .arg(&other)
        .assert()
        .code(2)
        .stderr(contains("--replace"));
    // --replace replaces, and says so.
    bin(&cat)
        .arg("manifest")
        .arg(&root)
        .args(["--record", "w", "--replace"])
        .assert()
        .success()
        .stderr(contains("replaced: sha256:"));
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:w"])
        .assert()
        .success();
    bin(&cat)
        .args(["catalog", "import", "w", "--replace"])
        .arg(&other)
        .assert()
        .success();
    // --replace without --record is a usage error.
    bin(&cat)
        .arg("manifest")
        .arg(&root)
        .arg("--replace")
        .assert()
        .code(2);
}

#[test]
fn catalog_show_finds_a_baseline_by_name() {
    let (_d, root, cat) = tree();
    let a = bin(&cat)
        .arg("manifest")
        .arg(&root)
        .args(["--record", "kimi-k3-weights"])
        .assert()
        .success();
    let e = stderr(&a);
    let digest = e.split("recorded: ").nth(1).unwrap().trim().to_string();
    for q in ["kimi-k3-weights", "catalog:kimi-k3-weights"] {
        bin(&cat)
            .args(["catalog", "show", q])
            .assert()
            .success()
            .stdout(contains("baseline kimi-k3-weights"))
            .stdout(contains(digest.as_str()))
            .stdout(contains("files:    3"));
    }
    let out = bin(&cat)
        .args(["catalog", "show", "kimi-k3-weights", "--json"])
        .assert()
        .success();
    let j: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(j["baseline"]["name"], "kimi-k3-weights");
    assert_eq!(j["baseline"]["digest"], digest.as_str());
    bin(&cat)
        .args(["catalog", "show", "no-such"])
        .assert()
        .code(2);
    bin(&cat)
        .args(["catalog", "show", "catalog:no-such"])
        .assert()
        .code(2);
}

#[test]
fn the_cache_line_is_printed_only_with_verbose() {
    let (d, root, cat) = tree();
    // The catalog exists (a baseline), so the hash cache is used.
    record(&cat, &root, "w");
    let m = d.path().join("m.manifest");
    for args in [vec!["manifest"], vec!["check", "--manifest"]] {
        let mut c = bin(&cat);
        c.arg(args[0]).arg(&root);
        if args.len() > 1 {
            c.arg(args[1]).arg(&m);
        } else {
            c.arg("-o").arg(&m);
        }
        let quiet = stderr(&c.assert().success());
        assert!(!quiet.contains("cache"), "{quiet}");
        let mut c = bin(&cat);
        c.arg("-v").arg(args[0]).arg(&root);
        if args.len() > 1 {
            c.arg(args[1]).arg(&m);
        } else {
            c.arg("-o").arg(&m);
        }
        let loud = stderr(&c.assert().success());
        assert!(
            loud.contains("file digests from the catalog cache"),
            "{loud}"
        );
    }
}

#[test]
fn an_empty_baseline_is_refused_where_a_model_is_expected() {
    let (d, root, cat) = tree();
    let empty = d.path().join("empty.manifest");
    fs::write(&empty, "").unwrap();
    bin(&cat)
        .args(["catalog", "import", "nothing"])
        .arg(&empty)
        .assert()
        .success();
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:nothing"])
        .assert()
        .code(2)
        .stderr(contains("the manifest is empty"));
}

/// `catalog list` lays out its columns as wide as their widest value: the
/// sample's run name (30 characters) does not push the bundle and target
/// of its row out of line with the header and the other rows.
#[test]
fn catalog_list_columns_stay_aligned_with_long_run_names() {
    let (_d, root, cat) = tree();
    // A catalog exists once something is stored in it.
    record(&cat, &root, "w");
    let s = sample();
    for extra in [None, Some("--structure-only")] {
        let mut c = bin(&cat);
        c.arg("verify")
            .arg(s.join("kimi-k3-mi355x-20260923-sample.tgz"))
            .arg("--trust")
            .arg(s.join("trust.json"));
        if let Some(e) = extra {
            c.arg(e);
        }
        c.assert().success();
    }
    let out = bin(&cat).args(["catalog", "list"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert!(lines.len() >= 3, "{text}");
    let at = |l: &str, what: &str| l.find(what).unwrap_or_else(|| panic!("{what} not in {l}"));
    let bundle = at(lines[0], "BUNDLE");
    let target = at(lines[0], "TARGET");
    for l in &lines[1..] {
        assert!(l.contains("kimi-k3-mi355x-20260923-sample "), "{l}");
        assert_eq!(l.find("sha256:").unwrap_or(bundle), bundle, "{text}");
        assert_eq!(at(l, "/"), target, "{text}");
    }
}
