//! End-to-end tests of `seal`, `verify` (bundles) and `unpack` through the
//! built binary: byte-reproducibility across differently built trees, GNU tar
//! and coreutils agreeing with proofpack's bundles, exit codes, and unpack
//! leaving nothing behind on failure.

mod common;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use assert_cmd::Command as Cmd;
use serde_json::Value;

fn pp() -> Cmd {
    let mut c = common::proofpack();
    c.env_remove("SOURCE_DATE_EPOCH");
    // Tests never touch ~/.local: no catalog (it has its own tests).
    c.arg("--no-catalog");
    c
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// The files of a sample run: long, non-ASCII and spaced names, an empty
/// file, a file over one write buffer.
fn sample_files() -> Vec<(String, Vec<u8>)> {
    let long = format!("benchmark/{}/client.jsonl", "rate-0.5-".repeat(14));
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    vec![
        (
            "qualification.json".into(),
            br#"{"schema": "proofpack/qualification/v1", "name": "issue44-sample"}"#.to_vec(),
        ),
        (
            "benchmark/rate-0.5/client.jsonl".into(),
            b"{\"request_id\": \"r1\"}\n".to_vec(),
        ),
        (long, b"{\"request_id\": \"r2\"}\n".to_vec()),
        (
            "ünïcødé/ファイル.json".into(),
            "{\"k\": \"värde\"}".as_bytes().to_vec(),
        ),
        ("with space/comma, name.txt".into(), b"x".to_vec()),
        ("empty".into(), Vec::new()),
        ("weights/shard.bin".into(), big),
    ]
}

fn make_tree(root: &Path, reverse: bool, mtime_secs: u64, mode: u32) {
    let mut files = sample_files();
    if reverse {
        files.reverse();
    }
    for (rel, content) in &files {
        write(root, rel, content);
        let p = root.join(rel);
        let f = fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(mtime_secs))
            .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
    }
}

fn seal(run: &Path, out: &Path, extra: &[&str]) -> Value {
    let o = pp()
        .arg("seal")
        .arg(run)
        .arg("-o")
        .arg(out)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "seal failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn sha256sum(p: &Path) -> String {
    let o = Command::new("sha256sum").arg(p).output().unwrap();
    String::from_utf8(o.stdout).unwrap()[..64].to_string()
}

#[test]
fn two_differently_built_trees_seal_to_identical_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a/run"), d.path().join("b/other-name"));
    make_tree(&a, false, 1_000_000_000, 0o644);
    make_tree(&b, true, 1_700_000_000, 0o600);
    // Empty directories carry no content and must not change the bytes.
    fs::create_dir_all(b.join("empty-dir/nested")).unwrap();
    fs::set_permissions(b.join("benchmark"), fs::Permissions::from_mode(0o700)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(b.join("empty"), Some(4242), Some(4242)).unwrap();
    }
    let (oa, ob) = (d.path().join("a.tgz"), d.path().join("b.tgz"));
    let ja = seal(&a, &oa, &["--threads", "1"]);
    // Another umask and thread count for the second seal.
    let st = Command::new("sh")
        .arg("-c")
        .arg("umask 077; exec \"$0\" --no-catalog seal \"$1\" -o \"$2\" --threads 2 -q")
        .arg(common::bin())
        .arg(&b)
        .arg(&ob)
        .env_remove("SOURCE_DATE_EPOCH")
        .status()
        .unwrap();
    assert!(st.success());
    let (ba, bb) = (fs::read(&oa).unwrap(), fs::read(&ob).unwrap());
    assert_eq!(ba, bb, "bundles differ");
    // The root name comes from qualification.json, not the directory.
    assert_eq!(ja["root"], "issue44-sample");
    // Reported digests agree with coreutils and with the sidecar.
    assert_eq!(ja["sha256"], sha256sum(&oa));
    let side = fs::read_to_string(d.path().join("a.tgz.sha256")).unwrap();
    assert_eq!(side, format!("{}  a.tgz\n", sha256sum(&oa)));
    let st = Command::new("sha256sum")
        .arg("-c")
        .arg("a.tgz.sha256")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(st.status.success());
    // gzip header: no name, MTIME 0, (flags 0).
    assert_eq!(&ba[..4], &[0x1f, 0x8b, 8, 0]);
    assert_eq!(&ba[4..8], &[0, 0, 0, 0]);
    // The MANIFEST digest printed is that of `proofpack manifest` of the tree.
    let m = pp().arg("manifest").arg(&a).output().unwrap();
    let md = format!(
        "sha256:{}",
        proofpack::digest::Sha256Digest::of_bytes(&m.stdout)
    );
    assert_eq!(ja["manifest_digest"], md);
    // The output file is 0644 whatever the umask.
    assert_eq!(
        fs::metadata(&ob).unwrap().permissions().mode() & 0o777,
        0o644
    );
}

fn is_root() -> bool {
    // Owner changes need root; detect it without libc.
    let o = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&o.stdout).trim() == "0"
}

#[test]
fn source_date_epoch_sets_mtime_and_bad_values_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let out = d.path().join("e.tgz");
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .assert()
        .success();
    let listing = Command::new("tar")
        .args(["--utc", "-tvzf"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listing.stdout);
    assert!(
        text.lines().all(|l| l.contains("2023-11-14 22:13")),
        "{text}"
    );
    let first = fs::read(&out).unwrap();
    let zero = d.path().join("z.tgz");
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&zero)
        .assert()
        .success();
    assert_ne!(first, fs::read(&zero).unwrap());
    for bad in ["-1", "12abc", "99999999999999999999", "1e9", "8589934592"] {
        let bad_out = d.path().join("bad.tgz");
        pp().arg("seal")
            .arg(&run)
            .arg("-o")
            .arg(&bad_out)
            .env("SOURCE_DATE_EPOCH", bad)
            .assert()
            .code(2);
        assert!(!bad_out.exists());
    }
}

#[test]
fn gnu_tar_lists_and_extracts_and_sha256sum_agrees_with_manifest() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let out = d.path().join("r.tgz");
    seal(&run, &out, &[]);
    let list = Command::new("tar").arg("-tzf").arg(&out).output().unwrap();
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let names: Vec<String> = String::from_utf8(list.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut rels: Vec<String> = sample_files().into_iter().map(|(p, _)| p).collect();
    rels.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    // v1.1: qualification.json right after MANIFEST, then manifest order.
    let mut expected = vec!["issue44-sample/MANIFEST".to_string()];
    let first = "qualification.json";
    if rels.iter().any(|r| r == first) {
        expected.push(format!("issue44-sample/{first}"));
    }
    expected.extend(
        rels.iter()
            .filter(|r| *r != first)
            .map(|r| format!("issue44-sample/{r}")),
    );
    assert_eq!(
        names, expected,
        "MANIFEST first, qualification.json next, then manifest order, no directory entries"
    );
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    let st = Command::new("tar")
        .arg("-xzf")
        .arg(&out)
        .arg("-C")
        .arg(&x)
        .status()
        .unwrap();
    assert!(st.success());
    let root = x.join("issue44-sample");
    let manifest = fs::read_to_string(root.join("MANIFEST")).unwrap();
    let sums: String = manifest
        .lines()
        .map(|l| {
            let (p, h) = l.rsplit_once(':').unwrap();
            format!("{h}  {p}\n")
        })
        .collect();
    fs::write(d.path().join("sums"), sums).unwrap();
    let c = Command::new("sha256sum")
        .arg("-c")
        .arg(d.path().join("sums"))
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stdout));
    assert_eq!(
        String::from_utf8_lossy(&c.stdout).matches(": OK").count(),
        rels.len()
    );
    for (rel, content) in sample_files() {
        assert_eq!(fs::read(root.join(&rel)).unwrap(), content, "{rel}");
    }
}

#[test]
fn verify_and_unpack_a_good_bundle() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let out = d.path().join("r.tgz");
    let j = seal(&run, &out, &[]);
    let o = pp()
        .args(["verify", "--structure-only"])
        .arg(&out)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["ok"], true);
    let ids: Vec<&str> = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "bundle.sha256",
        "bundle.gzip",
        "bundle.tar",
        "bundle.root",
        "bundle.manifest",
        "bundle.entry:empty",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let sha = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "bundle.sha256")
        .unwrap();
    assert_eq!(sha["actual"], j["sha256"]);
    // Unpack lands the tree; resealing it gives the same bytes.
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    pp().arg("unpack")
        .arg(&out)
        .arg("-C")
        .arg(&x)
        .assert()
        .success();
    let names: Vec<_> = fs::read_dir(&x)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("issue44-sample")]);
    let again = d.path().join("again.tgz");
    seal(&x.join("issue44-sample"), &again, &[]);
    assert_eq!(fs::read(&out).unwrap(), fs::read(&again).unwrap());
    // A second unpack into the same place refuses (exit 2) and adds nothing.
    pp().arg("unpack")
        .arg(&out)
        .arg("-C")
        .arg(&x)
        .assert()
        .code(2);
    assert_eq!(fs::read_dir(&x).unwrap().count(), 1);
}

/// Decompresses, edits the tar bytes, recompresses.
fn tamper(src: &Path, dst: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let mut tar = Vec::new();
    flate2::read::GzDecoder::new(fs::File::open(src).unwrap())
        .read_to_end(&mut tar)
        .unwrap();
    edit(&mut tar);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&tar).unwrap();
    fs::write(dst, e.finish().unwrap()).unwrap();
}

#[test]
fn failed_verification_exits_1_and_unpack_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let out = d.path().join("r.tgz");
    seal(&run, &out, &[]);
    // Change one byte of the last file's content (weights/shard.bin).
    let bad = d.path().join("bad.tgz");
    tamper(&out, &bad, |tar| {
        let n = tar.len();
        tar[n - 1024 - 512 * 20] ^= 1;
    });
    let o = pp()
        .args(["verify", "--structure-only"])
        .arg(&bad)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let failed: Vec<&str> = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, vec!["bundle.entry:weights/shard.bin"]);
    let x = d.path().join("x");
    fs::create_dir(&x).unwrap();
    pp().arg("unpack")
        .arg(&bad)
        .arg("-C")
        .arg(&x)
        .assert()
        .code(1);
    assert_eq!(
        fs::read_dir(&x).unwrap().count(),
        0,
        "unpack left something behind"
    );
    // Truncated file: exit 1 (evidence does not hold), nothing left.
    let trunc = d.path().join("trunc.tgz");
    let bytes = fs::read(&out).unwrap();
    fs::write(&trunc, &bytes[..bytes.len() / 2]).unwrap();
    pp().args(["verify", "--structure-only"])
        .arg(&trunc)
        .assert()
        .code(1);
    pp().arg("unpack")
        .arg(&trunc)
        .arg("-C")
        .arg(&x)
        .assert()
        .code(1);
    assert_eq!(fs::read_dir(&x).unwrap().count(), 0);
    // A wrong sidecar fails bundle.sha256.
    fs::copy(&out, d.path().join("c.tgz")).unwrap();
    fs::write(
        d.path().join("c.tgz.sha256"),
        format!("{}  c.tgz\n", "0".repeat(64)),
    )
    .unwrap();
    let o = pp()
        .args(["verify", "--structure-only"])
        .arg(d.path().join("c.tgz"))
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["checks"][0]["id"], "bundle.sha256");
    assert_eq!(r["checks"][0]["ok"], false);
    // Missing bundle: exit 2.
    pp().args(["verify", "--structure-only"])
        .arg(d.path().join("nope.tgz"))
        .assert()
        .code(2);
}

#[test]
fn seal_refusals_exit_2_and_write_nothing() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    // Output inside the run directory.
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(run.join("self.tgz"))
        .assert()
        .code(2);
    assert!(!run.join("self.tgz").exists());
    // A stale MANIFEST in the run directory.
    write(&run, "MANIFEST", b"stale\n");
    let out = d.path().join("o.tgz");
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    fs::remove_file(run.join("MANIFEST")).unwrap();
    // A FIFO cannot be sealed: v1.1 calls that a verdict on the evidence
    // (exit 1), as `verify RUN_DIR` does for the same tree.
    let st = Command::new("mkfifo")
        .arg(run.join("pipe"))
        .status()
        .unwrap();
    assert!(st.success());
    let o = pp()
        .arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("pipe"));
    assert!(!out.exists());
    fs::remove_file(run.join("pipe")).unwrap();
    // Bad root names.
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .args(["--name", "a/b"])
        .assert()
        .code(2);
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .args(["--name", ".."])
        .assert()
        .code(2);
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&out)
        .args(["--level", "10"])
        .assert()
        .code(2);
    let left: Vec<_> = fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("run")],
        "no output or temp file may remain"
    );
    // --name overrides; the level changes the bytes but both verify.
    let j = seal(&run, &out, &["--name", "custom", "--level", "1"]);
    assert_eq!(j["root"], "custom");
    pp().args(["verify", "--structure-only"])
        .arg(&out)
        .assert()
        .success();
    let o9 = d.path().join("o9.tgz");
    seal(&run, &o9, &["--name", "custom", "--level", "9"]);
    assert_ne!(fs::read(&out).unwrap(), fs::read(&o9).unwrap());
    pp().args(["verify", "--structure-only"])
        .arg(&o9)
        .assert()
        .success();
}

#[test]
fn limit_flags_are_applied() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let out = d.path().join("r.tgz");
    seal(&run, &out, &[]);
    let o = pp()
        .args(["verify", "--structure-only"])
        .arg(&out)
        .args(["--max-entry-bytes", "1M", "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "bundle.limit:entry_bytes")
        .unwrap();
    assert_eq!(c["ok"], false);
    pp().args(["verify", "--structure-only"])
        .arg(&out)
        .args(["--max-entry-bytes", "3MiB"])
        .assert()
        .success();
    pp().args(["verify", "--structure-only"])
        .arg(&out)
        .args(["--max-entry-bytes", "3X"])
        .assert()
        .code(2);
}

#[test]
fn bundles_written_by_gnu_tar_verify() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    make_tree(&run, false, 5, 0o644);
    let m = pp().arg("manifest").arg(&run).output().unwrap();
    assert!(m.status.success());
    fs::write(run.join("MANIFEST"), &m.stdout).unwrap();
    let text = String::from_utf8(m.stdout).unwrap();
    let files: Vec<String> = text
        .lines()
        .map(|l| format!("run/{}", l.rsplit_once(':').unwrap().0))
        .collect();
    // MANIFEST first, then the files; a second list also has directory entries.
    let mut plain = vec!["run/MANIFEST".to_string()];
    plain.extend(files.iter().cloned());
    let mut with_dirs = vec![
        "run".to_string(),
        "run/MANIFEST".to_string(),
        "run/benchmark".to_string(),
    ];
    with_dirs.extend(files.iter().cloned());
    for fmt in ["posix", "gnu"] {
        for (label, list) in [("plain", &plain), ("dirs", &with_dirs)] {
            let lf = d.path().join(format!("{fmt}-{label}.list"));
            fs::write(&lf, list.join("\n") + "\n").unwrap();
            let out = d.path().join(format!("{fmt}-{label}.tgz"));
            let st = Command::new("tar")
                .arg(format!("--format={fmt}"))
                .args(["--no-recursion", "-czf"])
                .arg(&out)
                .arg("-T")
                .arg(&lf)
                .current_dir(d.path())
                .status()
                .unwrap();
            assert!(st.success());
            let o = pp()
                .args(["verify", "--structure-only"])
                .arg(&out)
                .arg("--json")
                .output()
                .unwrap();
            assert_eq!(
                o.status.code(),
                Some(0),
                "{fmt} {label}: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}
