//! Portable names (contract section 5.1): a bundle whose names extract to
//! another file on macOS or Windows is refused by the reader (each path
//! named), and `seal` refuses to write one; manifests of model trees keep
//! such names byte-exact, and `check` and `diff` warn about them.

mod bundle_support;

use std::fs;
use std::path::Path;

use bundle_support::{good_start, gz, pp, verify_bytes, A, B};

/// A bundle of `files` (MANIFEST first, in canonical order by path bytes).
fn bundle(files: &[(&str, &[u8])]) -> Vec<u8> {
    let entries = files
        .iter()
        .map(|(p, c)| proofpack::manifest::Entry {
            path: p.to_string(),
            size: None,
            sha256: proofpack::digest::Sha256Digest::of_bytes(c),
        })
        .collect();
    let m = proofpack::manifest::Manifest::from_entries(entries, "t").unwrap();
    let mut t = bundle_support::Tar::default();
    t.file("MANIFEST", m.canonical_text().as_bytes());
    for (p, c) in files {
        t.file(p, c);
    }
    gz(&t.end())
}

/// The forged names of the hostile review, each beside the attested
/// `inputs/config.json` (or alone), with the check id and the words its
/// refusal carries.
#[test]
fn the_reader_refuses_every_name_that_is_another_file_elsewhere() {
    let cfg: (&str, &[u8]) = ("inputs/config.json", b"{\"layers\": 61}\n");
    let forged: &[u8] = b"{\"layers\": 1}\n";
    for (name, needle) in [
        (
            "inputs/Config.json",
            "equal after Unicode NFC and case folding",
        ),
        (
            "inputs/CONFIG.JSON",
            "equal after Unicode NFC and case folding",
        ),
        (
            "Inputs/config.json",
            "equal after Unicode NFC and case folding",
        ),
        ("inputs/config.json.", "ends with a dot or a space"),
        ("inputs/config.json ", "ends with a dot or a space"),
        ("inputs\\config.json", "separator on Windows"),
        ("inputs/config.json:Zone.Identifier", "alternate stream"),
        ("CON", "reserved device name"),
        ("inputs/aux.json", "reserved device name"),
        ("inputs/lpt3", "reserved device name"),
        ("inputs/a\u{1b}b", "control character"),
    ] {
        let files = vec![A, B, cfg, (name, forged)];
        let v = verify_bytes(&bundle(&files));
        let id = format!("bundle.entry:{name}");
        v.assert_failed(&id, needle);
        let detail = v.check(&id)["detail"].as_str().unwrap().to_string();
        assert!(detail.contains("not a portable name"), "{name}: {detail}");
        if needle.contains("NFC") {
            // Both paths are named.
            assert!(
                detail.contains("config.json") && detail.contains(name),
                "{detail}"
            );
        }
    }
    // One name in NFC and in NFD (é precomposed, and e + combining acute).
    let nfc = "caf\u{e9}.txt";
    let nfd = "cafe\u{301}.txt";
    let v = verify_bytes(&bundle(&[A, B, (nfc, &b"one"[..]), (nfd, &b"two"[..])]));
    v.assert_failed(&format!("bundle.entry:{nfd}"), "NFC");
    // The control: distinct names verify.
    let mut t = good_start();
    verify_bytes(&gz(&t.end())).assert_verified();
}

#[test]
fn seal_refuses_a_run_whose_names_collide_naming_each() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    fs::create_dir_all(run.join("inputs")).unwrap();
    fs::write(run.join("inputs/config.json"), b"{}").unwrap();
    fs::write(run.join("inputs/Config.json"), b"{\"x\": 1}").unwrap();
    fs::write(run.join("aux.json"), b"{}").unwrap();
    fs::write(run.join("notes.txt."), b"x").unwrap();
    let out = d.path().join("b.tgz");
    let o = pp()
        .arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    for named in [
        "inputs/Config.json",
        "inputs/config.json",
        "aux.json",
        "notes.txt.",
    ] {
        assert!(err.contains(named), "{named} not named: {err}");
    }
    assert!(err.contains("not a portable name"), "{err}");
    assert!(!out.exists());
    // A root name that is a reserved device name is refused too.
    let ok_run = d.path().join("fine");
    fs::create_dir(&ok_run).unwrap();
    fs::write(ok_run.join("a.txt"), b"a").unwrap();
    let o = pp()
        .arg("seal")
        .arg(&ok_run)
        .args(["--name", "NUL"])
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("reserved device name"));
}

fn manifest_of(tree: &Path) -> String {
    let o = pp().arg("manifest").arg(tree).output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn model_manifests_stay_byte_exact_and_check_and_diff_warn() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("model");
    fs::create_dir(&tree).unwrap();
    fs::write(tree.join("tokenizer.json"), b"a").unwrap();
    fs::write(tree.join("Tokenizer.json"), b"b").unwrap();
    let text = manifest_of(&tree);
    assert!(
        text.starts_with("Tokenizer.json:") && text.contains("\ntokenizer.json:"),
        "{text}"
    );
    let m = d.path().join("m.manifest");
    fs::write(&m, &text).unwrap();
    let o = pp()
        .args(["check", "--manifest"])
        .arg(&m)
        .arg(&tree)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning") && err.contains("one file on macOS and Windows"),
        "{err}"
    );
    let o = pp().arg("diff").arg(&m).arg(&tree).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("\"Tokenizer.json\"") && err.contains("NFC"),
        "{err}"
    );
}
