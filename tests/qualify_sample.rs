//! The committed sample (testdata/sample) is what the generator writes, byte
//! for byte, and the README's main command verifies it.

mod common;

#[path = "../examples/make_sample/gen.rs"]
mod gen;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/sample")
}

#[test]
fn readme_main_command_verifies_the_committed_sample() {
    // The command exactly as the README gives it.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.trim_start().starts_with("cargo run --release -- verify "))
        .expect("the README's main command");
    let args: Vec<&str> = line
        .trim()
        .strip_prefix("cargo run --release -- ")
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(args.contains(&"--publication"), "{line}");
    let out = common::proofpack()
        .arg("--no-catalog")
        .args(&args)
        .current_dir(&root)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("\nVERIFIED: "), "{text}");
    assert!(
        text.contains("every row, cell and statement mapped to evidence"),
        "{text}"
    );
    assert!(!text.contains("Published but not checked"), "{text}");
    assert!(text.contains("PASS seal"), "{text}");
    assert!(text.contains("PASS publication:bundle"), "{text}");
    assert!(text.contains("200/200 within limits, 0 failed"), "{text}");
    // The same command with --require-all: every table, row, cell and
    // statement of the sample's write-up is checked, so it still passes.
    let out = common::proofpack()
        .arg("--no-catalog")
        .args(&args)
        .arg("--require-all")
        .current_dir(&root)
        .output()
        .unwrap();
    let strict = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{strict}");
    assert!(
        strict.contains("(20 of 20 statement(s) of the prose checked, 0 bound by the publisher, 0 not checked), every row, cell and statement mapped to evidence"),
        "{strict}"
    );
    let _ = sample();
}

#[test]
fn committed_sample_is_what_the_generator_writes() {
    let d = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO"))
        .args(["run", "-q", "--example", "make_sample", "--"])
        .arg(d.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    let (want, got) = (files(&sample()), files(d.path()));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (k, v) in &want {
        assert!(got[k] == *v, "{k} differs from a fresh run of make_sample");
    }
    assert!(want.len() > 100);
}
