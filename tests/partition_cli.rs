//! `manifest --partition K/N` and `manifest merge` (issue 12): the merged
//! digest equals the single-machine manifest of the same tree, and every bad
//! merge is refused with a clear message (exit 2).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn pp() -> Command {
    let mut c = common::proofpack();
    c.arg("--no-catalog");
    c
}

/// A tree of many files of varied sizes in nested directories.
fn tree(dir: &Path, seed: u64, files: usize) -> PathBuf {
    let root = dir.join(format!("tree-{seed}"));
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in 0..files {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let sub = root.join(format!("d{}/e{}", i % 7, i % 3));
        std::fs::create_dir_all(&sub).unwrap();
        let size = (x % 5000) as usize;
        let body: Vec<u8> = (0..size).map(|j| (j as u64 ^ x) as u8).collect();
        std::fs::write(sub.join(format!("f{i:04}.bin")), body).unwrap();
    }
    root
}

fn single(root: &Path) -> String {
    let out = pp().arg("manifest").arg(root).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn parts(root: &Path, dir: &Path, n: u64) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let p = dir.join(format!("part-{k}-of-{n}.json"));
            pp().arg("manifest")
                .arg(root)
                .arg("--partition")
                .arg(format!("{k}/{n}"))
                .arg("-o")
                .arg(&p)
                .assert()
                .code(0);
            p
        })
        .collect()
}

fn merge(parts: &[PathBuf]) -> (i32, String, String) {
    let out = pp()
        .arg("manifest")
        .arg("merge")
        .args(parts)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn merged_parts_equal_the_single_machine_manifest() {
    let d = tempfile::tempdir().unwrap();
    let root = tree(d.path(), 7, 600);
    let whole = single(&root);
    for n in [1u64, 2, 3, 8] {
        let ps = parts(&root, d.path(), n);
        let (code, text, stderr) = merge(&ps);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(text, whole, "N = {n}");
        // The parts are balanced by size and together cover every file once.
        let sizes: Vec<u64> = ps
            .iter()
            .map(|p| {
                let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
                v["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["size"].as_u64().unwrap())
                    .sum()
            })
            .collect();
        let (max, min) = (*sizes.iter().max().unwrap(), *sizes.iter().min().unwrap());
        assert!(max - min <= 5000, "N = {n}: part sizes {sizes:?}");
    }
}

fn edit(p: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn every_bad_merge_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = tree(d.path(), 11, 200);
    let other = tree(d.path(), 12, 200);
    let refuse = |ps: &[PathBuf], want: &str| {
        let (code, _, stderr) = merge(ps);
        assert_eq!(code, 2, "{want}: {stderr}");
        assert!(stderr.contains(want), "{want:?} not in {stderr}");
    };
    let ps = parts(&root, d.path(), 3);
    // A part count other than N.
    refuse(
        &ps[..2],
        "2 part(s) given, the list is split into 3; missing part(s) 3",
    );
    // A part given twice.
    refuse(
        &[ps[0].clone(), ps[1].clone(), ps[1].clone()],
        "part 2 is given twice",
    );
    // Parts of different file lists.
    let od = d.path().join("other");
    std::fs::create_dir(&od).unwrap();
    let ops = parts(&other, &od, 3);
    refuse(
        &[ps[0].clone(), ps[1].clone(), ops[2].clone()],
        "parts of different file lists",
    );
    // A gap: a file removed from its part.
    let gap = d.path().join("gap.json");
    std::fs::copy(&ps[1], &gap).unwrap();
    edit(&gap, |v| {
        v["entries"].as_array_mut().unwrap().pop();
    });
    refuse(
        &[ps[0].clone(), gap, ps[2].clone()],
        "a part is missing files (a gap)",
    );
    // An overlap: a file of part 1 also in part 2.
    let p1: Value = serde_json::from_slice(&std::fs::read(&ps[0]).unwrap()).unwrap();
    let lap = d.path().join("overlap.json");
    std::fs::copy(&ps[1], &lap).unwrap();
    edit(&lap, |v| {
        v["entries"]
            .as_array_mut()
            .unwrap()
            .push(p1["entries"][0].clone())
    });
    refuse(&[ps[0].clone(), lap, ps[2].clone()], "parts overlap");
    // A file moved into another part (each part still parses, the union is whole).
    let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
    std::fs::copy(&ps[0], &a).unwrap();
    std::fs::copy(&ps[1], &b).unwrap();
    let moved = p1["entries"][0].clone();
    edit(&a, |v| {
        v["entries"].as_array_mut().unwrap().remove(0);
    });
    edit(&b, |v| {
        v["entries"].as_array_mut().unwrap().push(moved.clone())
    });
    refuse(&[a, b, ps[2].clone()], "but belongs to part 1");
    // Not a part at all.
    let junk = d.path().join("junk.json");
    std::fs::write(&junk, "{\"schema\": \"proofpack/manifest/v1\"}").unwrap();
    refuse(&[junk], "not a manifest part");
    // A bad --partition.
    pp().arg("manifest")
        .arg(&root)
        .args(["--partition", "4/3"])
        .assert()
        .code(2);
}
