//! Baselines: `manifest --record NAME`, `catalog:NAME` in `check` and
//! `diff`, export to and import from plain manifest files.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::str::contains;
use proofpack::catalog::Catalog;
use proofpack::digest::Sha256Digest;
use proofpack::manifest::{Entry, Manifest};

fn bin(catalog: &Path) -> Command {
    let mut c = common::proofpack();
    c.env("PROOFPACK_CATALOG", catalog).env("NO_COLOR", "1");
    c
}

fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("model");
    fs::create_dir_all(root.join("shards")).unwrap();
    fs::write(root.join("config.json"), b"{\"layers\": 61}").unwrap();
    for i in 0..5 {
        fs::write(
            root.join(format!("shards/{i:05}.safetensors")),
            vec![i as u8; 1000 + i],
        )
        .unwrap();
    }
    let cat = d.path().join("catalog.db");
    (d, root, cat)
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

#[test]
fn record_check_diff_export_round_trip() {
    let (d, root, cat) = tree();
    let rec = bin(&cat)
        .args(["manifest", "--record", "kimi-k3-weights"])
        .arg(&root)
        .assert()
        .success()
        .stderr(contains(
            "baseline catalog:kimi-k3-weights recorded: sha256:",
        ));
    let canonical = stdout(&rec);

    // The CI gate: check against the baseline by name.
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:kimi-k3-weights"])
        .assert()
        .success()
        .stderr(contains("6 files match catalog:kimi-k3-weights"));
    // Sizes come with a baseline recorded from a directory. (The fixture's
    // "shards" are not safetensors files: --no-structure leaves their
    // headers unread.)
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:kimi-k3-weights", "--sizes-only"])
        .arg("--no-structure")
        .assert()
        .success();
    bin(&cat)
        .args(["diff", "catalog:kimi-k3-weights"])
        .arg(&root)
        .assert()
        .success()
        .stderr(contains("no drift"));

    // Export: the canonical text is exactly what `manifest` printed.
    let exported = stdout(
        &bin(&cat)
            .args(["catalog", "export", "kimi-k3-weights"])
            .assert()
            .success(),
    );
    assert_eq!(exported, canonical);
    let json_file = d.path().join("baseline.json");
    bin(&cat)
        .args([
            "catalog",
            "export",
            "kimi-k3-weights",
            "--format",
            "json",
            "-o",
        ])
        .arg(&json_file)
        .assert()
        .success();
    // The exported file works without the catalog.
    bin(&cat)
        .args(["--no-catalog", "check"])
        .arg(&root)
        .arg("--manifest")
        .arg(&json_file)
        .args(["--sizes-only", "--no-structure"])
        .assert()
        .success();
    let sums = stdout(
        &bin(&cat)
            .args([
                "catalog",
                "export",
                "kimi-k3-weights",
                "--format",
                "sha256sum",
            ])
            .assert()
            .success(),
    );
    assert!(sums.lines().any(|l| l.ends_with("  config.json")), "{sums}");

    // Drift: one changed shard, one new file.
    fs::write(root.join("shards/00002.safetensors"), vec![9u8; 1002]).unwrap();
    fs::write(root.join("extra.bin"), b"x").unwrap();
    let out = bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:kimi-k3-weights", "--json"])
        .assert()
        .code(1);
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        report["target"],
        format!("{} against catalog:kimi-k3-weights", root.display())
    );
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["file:extra.bin", "file:shards/00002.safetensors"]);
    bin(&cat)
        .args(["diff", "catalog:kimi-k3-weights"])
        .arg(&root)
        .assert()
        .code(1)
        .stdout(contains("added: extra.bin"));

    // Import the exported file under another name: the same set.
    bin(&cat)
        .args(["catalog", "import", "copy"])
        .arg(&json_file)
        .assert()
        .success();
    bin(&cat)
        .args(["diff", "catalog:kimi-k3-weights", "catalog:copy"])
        .assert()
        .success();

    // Re-recording with --replace (v1.1) replaces and says so; list shows
    // both baselines.
    bin(&cat)
        .args(["manifest", "--record", "kimi-k3-weights", "--replace", "-o"])
        .arg(d.path().join("new.manifest"))
        .arg(&root)
        .assert()
        .success()
        .stderr(contains(
            "baseline catalog:kimi-k3-weights replaced: sha256:",
        ));
    let list = stdout(&bin(&cat).args(["catalog", "list"]).assert().success());
    assert!(
        list.contains("kimi-k3-weights") && list.contains("copy") && list.contains("7 files"),
        "{list}"
    );
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:kimi-k3-weights"])
        .assert()
        .success();

    bin(&cat)
        .args(["catalog", "forget", "--baseline", "copy"])
        .assert()
        .success();
    bin(&cat)
        .args(["diff", "catalog:copy"])
        .arg(&root)
        .assert()
        .code(2)
        .stderr(contains("no baseline named \"copy\""));
}

#[test]
fn unresolvable_baselines_are_argument_errors() {
    let (d, root, cat) = tree();
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:missing"])
        .assert()
        .code(2)
        .stderr(contains("no baseline named \"missing\""));
    bin(&cat)
        .args(["--no-catalog", "check"])
        .arg(&root)
        .args(["--manifest", "catalog:x"])
        .assert()
        .code(2)
        .stderr(contains("--no-catalog"));
    bin(&cat)
        .args(["--no-catalog", "manifest", "--record", "x"])
        .arg(&root)
        .assert()
        .code(2)
        .stdout("");
    bin(&cat)
        .args(["manifest", "--record", "bad name"])
        .arg(&root)
        .assert()
        .code(2)
        .stderr(contains("invalid baseline name"));
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:x", "--manifest-format", "json"])
        .assert()
        .code(2);

    // An unusable catalog cannot resolve a baseline: exit 2, saying why.
    let garbage = d.path().join("garbage.db");
    fs::write(&garbage, vec![b'#'; 8192]).unwrap();
    bin(&garbage)
        .args(["diff", "catalog:x"])
        .arg(&root)
        .assert()
        .code(2)
        .stderr(contains("corrupt or not a SQLite database"));
    // ...and --record cannot record, before any hashing happens.
    bin(&garbage)
        .args(["manifest", "--record", "x"])
        .arg(&root)
        .assert()
        .code(2)
        .stdout("");

    // A file literally named catalog:... is reached with ./
    let local = d.path().join("catalog:x");
    let out = bin(&cat)
        .args(["--no-catalog", "manifest"])
        .arg(&root)
        .assert()
        .success();
    fs::write(&local, &out.get_output().stdout).unwrap();
    bin(&cat)
        .current_dir(d.path())
        .args(["--no-catalog", "check"])
        .arg(&root)
        .args(["--manifest", "./catalog:x"])
        .assert()
        .success();
}

#[test]
fn a_damaged_baseline_row_is_an_error_not_a_wrong_answer() {
    let (_d, root, cat) = tree();
    bin(&cat)
        .args(["manifest", "--record", "b"])
        .arg(&root)
        .assert()
        .success();
    // Flip one digest inside the stored body.
    let conn = rusqlite::Connection::open(&cat).unwrap();
    let body: Vec<u8> = conn
        .query_row("SELECT body FROM baselines WHERE name = 'b'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let text = String::from_utf8(body).unwrap();
    let h = Sha256Digest::of_bytes(b"{\"layers\": 61}").to_hex();
    assert!(text.contains(&h));
    let tampered = text.replace(&h, &Sha256Digest::of_bytes(b"other").to_hex());
    conn.execute(
        "UPDATE baselines SET body = ?1 WHERE name = 'b'",
        [tampered.as_bytes()],
    )
    .unwrap();
    drop(conn);
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:b"])
        .assert()
        .code(2)
        .stderr(contains("baseline \"b\" is damaged"));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn entry() -> impl Strategy<Value = Entry> {
        (
            "[a-zA-Z0-9_ .:-]{1,8}(/[a-zA-Z0-9_ .-]{1,8}){0,2}",
            any::<[u8; 32]>(),
            proptest::option::of(0u64..1 << 40),
        )
            .prop_filter("valid path", |(p, _, _)| {
                proofpack::manifest::validate_path(p).is_ok()
            })
            .prop_map(|(path, h, size)| Entry {
                path,
                size,
                sha256: Sha256Digest(h),
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn put_get_export_round_trip(entries in proptest::collection::vec(entry(), 0..12), sized in any::<bool>()) {
            let mut entries = entries;
            entries.sort_by(|a, b| a.path.cmp(&b.path));
            entries.dedup_by(|a, b| a.path == b.path);
            for e in &mut entries {
                // Sizes on all entries or on none, as the formats allow.
                e.size = if sized { Some(e.size.unwrap_or(7)) } else { None };
            }
            let m = Manifest::from_entries(entries, "prop").unwrap();
            let d = tempfile::tempdir().unwrap();
            let c = Catalog::open(&d.path().join("c.db")).unwrap();
            prop_assert_eq!(c.put_baseline("p", &m, "prop").unwrap(), None);
            let back = c.get_baseline("p").unwrap().unwrap();
            prop_assert_eq!(&back, &m);
            prop_assert_eq!(back.digest(), m.digest());
            let text = c.export_baseline("p", proofpack::manifest::Format::Canonical).unwrap();
            prop_assert_eq!(text, m.canonical_text());
            prop_assert_eq!(c.put_baseline("p", &m, "prop").unwrap(), Some(m.digest()));
            prop_assert!(c.get_baseline("q").unwrap().is_none());
        }
    }
}
