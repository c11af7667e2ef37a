//! v1.1 (issue 23): `proofpack manifest` writes its entries as it hashes
//! them, one directory's listing and one batch at a time. Its output is
//! byte for byte what the manifest built whole renders, in every format,
//! on a tree whose names test the order (`a` beside `a.txt` and `a-b`),
//! with escapes (`\`), shards with header digests, more files than one
//! hashing batch, and nothing is written when the tree cannot be listed.

use std::fs;
use std::path::Path;

use proofpack::manifest::{build, BuildOptions, Format};
use proofpack::progress::NoProgress;

mod common;

fn write(root: &Path, rel: &str, content: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// A minimal safetensors file: one F32 tensor of one value.
fn shard() -> Vec<u8> {
    let header = br#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(header);
    b.extend_from_slice(&[0, 0, 128, 63]);
    b
}

fn tree(root: &Path) {
    for rel in ["a.txt", "a/b", "a/c/d", "a-b", "a0", "b\\c", "z"] {
        write(root, rel, rel.as_bytes());
    }
    write(root, "m/model-00001-of-00002.safetensors", &shard());
    write(root, "m/model-00002-of-00002.safetensors", b"not a shard");
    // More than one hashing batch (4,096), over several directories.
    for i in 0..5000 {
        write(
            root,
            &format!("many/{}/f{i}", i % 7),
            format!("{i}").as_bytes(),
        );
    }
}

use common::run_nocat as run;

#[test]
fn streamed_output_is_what_the_whole_manifest_renders() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    tree(&root);
    let whole = build(&root, &BuildOptions::default(), &NoProgress).unwrap();
    assert!(whole
        .header_sha256("m/model-00001-of-00002.safetensors")
        .is_some());
    for (name, format) in [
        ("canonical", Format::Canonical),
        ("json", Format::Json),
        ("sha256sum", Format::Sha256sum),
    ] {
        let want = whole.render(format).unwrap();
        let (code, stdout, stderr) = run(&[
            "manifest".as_ref(),
            root.as_os_str(),
            "--format".as_ref(),
            name.as_ref(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, want, "{name} to stdout");
        let out = d.path().join(format!("m.{name}"));
        let (code, _, stderr) = run(&[
            "manifest".as_ref(),
            root.as_os_str(),
            "--format".as_ref(),
            name.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(fs::read_to_string(&out).unwrap(), want, "{name} to a file");
        assert!(
            stderr.contains(&whole.digest().prefixed()) && stderr.contains("5009 files"),
            "{stderr}"
        );
    }
    // A single file.
    let one = root.join("a.txt");
    let (code, stdout, _) = run(&["manifest".as_ref(), one.as_os_str()]);
    assert_eq!(code, 0);
    let whole = build(&one, &BuildOptions::default(), &NoProgress).unwrap();
    assert_eq!(stdout, whole.render(Format::Canonical).unwrap());
}

#[test]
fn a_tree_that_cannot_be_listed_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    tree(&root);
    std::os::unix::fs::symlink("/nonexistent/target", root.join("many/3/dangling")).unwrap();
    let out = d.path().join("m.txt");
    fs::write(&out, "before\n").unwrap();
    let (code, stdout, stderr) = run(&[
        "manifest".as_ref(),
        root.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("many/3/dangling"), "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(fs::read_to_string(&out).unwrap(), "before\n");
    assert_eq!(
        fs::read_dir(d.path()).unwrap().count(),
        2,
        "no temporary file left"
    );
}
