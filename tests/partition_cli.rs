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

/// Two trees that share a path/size list (a copy of the tree under
/// another root whose files have other contents of the same sizes): the
/// parts' lists agree, but their stat lists and roots do not.
#[test]
fn parts_of_two_trees_that_share_a_path_size_list_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = tree(d.path(), 21, 60);
    let twin = d.path().join("twin");
    std::fs::create_dir(&twin).unwrap();
    let copy = twin.join(root.file_name().unwrap());
    assert!(std::process::Command::new("cp")
        .arg("-r")
        .arg(&root)
        .arg(&copy)
        .status()
        .unwrap()
        .success());
    // Same sizes, other bytes: the forger's tree.
    for e in walkdir(&copy) {
        let mut b = std::fs::read(&e).unwrap();
        for x in b.iter_mut() {
            *x = x.wrapping_add(1);
        }
        std::fs::write(&e, b).unwrap();
    }
    let pd = d.path().join("p");
    let td = d.path().join("t");
    std::fs::create_dir(&pd).unwrap();
    std::fs::create_dir(&td).unwrap();
    let ps = parts(&root, &pd, 2);
    let ts = parts(&copy, &td, 2);
    let (code, _, stderr) = merge(&[ps[0].clone(), ts[1].clone()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("hashed on different trees"), "{stderr}");
    // The same stat list under another root (a tree mounted elsewhere):
    // refused unless --allow-roots.
    let moved = d.path().join("elsewhere");
    std::fs::create_dir(&moved).unwrap();
    let at = moved.join("m");
    std::fs::rename(&root, &at).unwrap();
    let md = d.path().join("m");
    std::fs::create_dir(&md).unwrap();
    let ms = parts(&at, &md, 2);
    let (code, _, stderr) = merge(&[ps[0].clone(), ms[1].clone()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("parts of different roots") && stderr.contains("--allow-roots"));
    let out = pp()
        .args(["manifest", "merge", "--allow-roots"])
        .arg(&ps[0])
        .arg(&ms[1])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), single(&at));
    // Every part says what it was hashed on.
    let v: Value = serde_json::from_slice(&std::fs::read(&ps[0]).unwrap()).unwrap();
    for k in ["stat_list", "host", "root"] {
        assert!(v[k].as_str().unwrap().starts_with("sha256:"), "{k}");
    }
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn path_errors_say_what_is_wrong_with_the_path() {
    let d = tempfile::tempdir().unwrap();
    let root = tree(d.path(), 31, 20);
    let ps = parts(&root, d.path(), 1);
    for (bad, want) in [
        ("../etc/passwd", "'..' component"),
        ("/abs", "absolute path"),
        ("a//b", "empty path component"),
    ] {
        let p = d.path().join("bad.json");
        std::fs::copy(&ps[0], &p).unwrap();
        edit(&p, |v| v["entries"][0]["path"] = Value::from(bad));
        let (code, _, stderr) = merge(&[p]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(
            stderr.contains(want) && stderr.contains("entries[0]"),
            "{bad}: {stderr}"
        );
        assert!(!stderr.contains("gap"), "{bad}: {stderr}");
    }
    // A part of an earlier version (no stat list, host or root).
    let p = d.path().join("old.json");
    std::fs::copy(&ps[0], &p).unwrap();
    edit(&p, |v| {
        let o = v.as_object_mut().unwrap();
        for k in ["stat_list", "host", "root"] {
            o.remove(k);
        }
    });
    let (code, _, stderr) = merge(&[p]);
    assert_eq!(code, 2);
    assert!(stderr.contains("hash it again"), "{stderr}");
}

/// The merged JSON record keeps every safetensors header digest: byte for
/// byte the record one machine writes.
#[test]
fn merged_json_records_equal_the_single_run_record_with_header_digests() {
    let weights = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample/weights");
    let d = tempfile::tempdir().unwrap();
    let out = pp()
        .arg("manifest")
        .arg(&weights)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let whole = String::from_utf8(out.stdout).unwrap();
    let headers = whole.matches("\"header_sha256\"").count();
    assert!(
        headers >= 3,
        "the sample's shards carry header digests: {headers}"
    );
    for n in [1u64, 3] {
        let dir = d.path().join(format!("n{n}"));
        std::fs::create_dir(&dir).unwrap();
        let ps = parts(&weights, &dir, n);
        let out = pp()
            .args(["manifest", "merge", "--format", "json"])
            .args(&ps)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8(out.stdout).unwrap(), whole, "N = {n}");
    }
}
