//! End-to-end tests of `proofpack manifest`, `check` and `diff`, run through
//! the built binary. Expected digests come from independent tools
//! (`sha256sum`, Python's hashlib), never from proofpack itself.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use assert_cmd::Command as Cmd;
use predicates::prelude::*;
use serde_json::Value;

mod common;
use common::python;

fn pp() -> Cmd {
    let mut c = common::proofpack();
    c.env_remove("NO_COLOR");
    // These tests are about manifests; the catalog (and its hash cache) has
    // its own tests, and tests must never touch ~/.local.
    c.arg("--no-catalog");
    c
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

/// A tree with awkward but legal names.
fn sample_tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "plain.txt", b"hello\n");
    write(d.path(), "with space/file name.bin", b"\x00\x01\x02");
    write(d.path(), "colon:in:name", b"colons");
    write(
        d.path(),
        "ünïcødé/ファイル.json",
        "{\"k\": \"värde\"}".as_bytes(),
    );
    write(d.path(), "empty", b"");
    write(d.path(), "back\\slash", b"bs");
    fs::create_dir_all(d.path().join("empty-dir/nested")).unwrap();
    d
}

fn stdout_of(c: &mut Cmd) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The canonical manifest as computed by Python (independent implementation).
fn python_canonical(root: &Path) -> (String, String) {
    let script = r#"
import hashlib, os, sys
root = sys.argv[1]
lines = []
for dp, dn, fn in os.walk(root):
    for f in fn:
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, root).replace(os.sep, "/")
        with open(p, "rb") as fh:
            lines.append((rel.encode("utf-8"), hashlib.sha256(fh.read()).hexdigest()))
lines.sort()
text = b"".join(r + b":" + h.encode() + b"\n" for r, h in lines)
sys.stdout.buffer.write(text)
sys.stderr.write(hashlib.sha256(text).hexdigest())
"#;
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `diff OLD NEW --json`: the report.
fn diff_json(old: &std::path::Path, new: &std::path::Path) -> Value {
    let out = pp()
        .arg("diff")
        .arg(old)
        .arg(new)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn canonical_text_and_digest_match_python() {
    let d = sample_tree();
    let (py_text, py_digest) = python_canonical(d.path());
    let out = pp().arg("manifest").arg(d.path()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), py_text);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("sha256:{py_digest}")),
        "stderr: {err}"
    );
    assert!(err.contains("6 files"), "stderr: {err}");
}

#[test]
fn manifest_digest_matches_sha256sum_of_the_text() {
    let d = sample_tree();
    let m = tempfile::NamedTempFile::new().unwrap();
    let out = pp()
        .arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(m.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let sum = Command::new("sha256sum").arg(m.path()).output().unwrap();
    let hex = String::from_utf8(sum.stdout).unwrap()[..64].to_string();
    assert!(String::from_utf8_lossy(&out.stderr).contains(&hex));
}

#[test]
fn sha256sum_format_is_accepted_by_coreutils() {
    let d = sample_tree();
    let text = stdout_of(
        pp().arg("manifest")
            .arg(d.path())
            .args(["--format", "sha256sum"]),
    );
    let mut child = Command::new("sha256sum")
        .arg("-c")
        .arg("--strict")
        .current_dir(d.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "sha256sum -c: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).matches(": OK").count(),
        6
    );
}

#[test]
fn coreutils_sha256sum_output_is_accepted_by_check() {
    let d = sample_tree();
    // Let coreutils write the lines (including its escaping of the backslash name).
    let out = Command::new("sh")
        .arg("-c")
        .arg("find . -type f | sed 's|^\\./||' | sort | xargs -d '\\n' sha256sum")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let m = tempfile::NamedTempFile::new().unwrap();
    fs::write(m.path(), &out.stdout).unwrap();
    pp().arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .assert()
        .success();
}

#[test]
fn three_formats_round_trip_to_the_same_digest() {
    let d = sample_tree();
    let canonical = stdout_of(pp().arg("manifest").arg(d.path()));
    let dir = tempfile::tempdir().unwrap();
    for f in ["canonical", "json", "sha256sum"] {
        let p = dir.path().join(f);
        pp().arg("manifest")
            .arg(d.path())
            .args(["--format", f, "-o"])
            .arg(&p)
            .assert()
            .success();
        // Any format read back and rendered canonically gives the same text...
        let back = dir.path().join(format!("{f}.back"));
        pp().arg("diff").arg(&p).arg(d.path()).assert().success();
        pp().arg("check")
            .arg(d.path())
            .arg("--manifest")
            .arg(&p)
            .assert()
            .success();
        fs::copy(&p, &back).unwrap();
        pp().arg("diff")
            .arg(&back)
            .arg(dir.path().join("canonical"))
            .assert()
            .success();
    }
    let rec: Value = serde_json::from_slice(&fs::read(dir.path().join("json")).unwrap()).unwrap();
    assert_eq!(rec["schema"], "proofpack/manifest/v1");
    assert_eq!(rec["files"], 6);
    assert_eq!(rec["bytes"], 6 + 3 + 6 + "{\"k\": \"värde\"}".len() + 2);
    let digest = format!(
        "sha256:{}",
        proofpack::digest::Sha256Digest::of_bytes(canonical.as_bytes()).to_hex()
    );
    assert_eq!(rec["digest"], Value::String(digest));
}

#[test]
fn empty_directory_gives_the_empty_manifest() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join("a/b")).unwrap();
    let out = pp().arg("manifest").arg(d.path()).output().unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    // SHA-256 of the empty string.
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

#[test]
fn single_file_is_listed_by_its_name() {
    let d = sample_tree();
    let text = stdout_of(pp().arg("manifest").arg(d.path().join("plain.txt")));
    assert_eq!(
        text,
        "plain.txt:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03\n"
    );
}

#[test]
fn symlink_to_file_is_hashed_under_the_link_path() {
    let d = sample_tree();
    symlink(d.path().join("plain.txt"), d.path().join("link.txt")).unwrap();
    let text = stdout_of(pp().arg("manifest").arg(d.path()));
    assert!(text
        .contains("link.txt:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03\n"));
}

#[test]
fn dangling_symlink_is_an_error_naming_it() {
    let d = sample_tree();
    symlink("/nonexistent/target", d.path().join("dangling")).unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("\"dangling\": dangling symlink"));
}

#[test]
fn symlink_to_directory_is_an_error_naming_it() {
    let d = sample_tree();
    symlink(d.path().join("with space"), d.path().join("dirlink")).unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "\"dirlink\": symlink to a directory",
        ));
}

#[test]
fn fifo_and_device_links_are_errors() {
    let d = sample_tree();
    let st = Command::new("mkfifo")
        .arg(d.path().join("pipe"))
        .status()
        .unwrap();
    assert!(st.success());
    symlink("/dev/null", d.path().join("devlink")).unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"pipe\": FIFO"))
        .stderr(predicate::str::contains(
            "\"devlink\": symlink to a character device",
        ));
}

#[test]
fn exclude_is_the_only_way_to_leave_things_out() {
    let d = sample_tree();
    symlink("/nonexistent", d.path().join("junk.tmp")).unwrap();
    let text = stdout_of(pp().arg("manifest").arg(d.path()).args([
        "--exclude",
        "*.tmp",
        "--exclude",
        "ünïcødé",
    ]));
    assert!(!text.contains("junk.tmp"));
    assert!(!text.contains("ファイル"));
    assert_eq!(text.lines().count(), 5);
}

#[test]
fn newline_in_a_name_is_an_error_naming_it() {
    let d = sample_tree();
    write(d.path(), "bad\nname", b"x");
    pp().arg("manifest")
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad\\nname"));
}

#[test]
fn non_utf8_name_is_an_error_naming_it() {
    use std::os::unix::ffi::OsStrExt;
    let d = sample_tree();
    let name = std::ffi::OsStr::from_bytes(b"latin1-\xe9t\xe9");
    fs::write(d.path().join(name), b"x").unwrap();
    pp().arg("manifest").arg(d.path()).assert().code(2).stderr(
        predicate::str::contains("latin1-").and(predicate::str::contains("not valid UTF-8")),
    );
}

/// Running as root (as CI does), `chmod 000` does not stop reads; a symlink to
/// `/proc/self/mem` does: it is a regular file whose read at offset 0 fails
/// with EIO in every process.
#[test]
fn unreadable_file_exits_2_naming_the_path() {
    let d = sample_tree();
    symlink("/proc/self/mem", d.path().join("unreadable.bin")).unwrap();
    let out = pp()
        .arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(d.path().join("../out.manifest"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unreadable.bin"), "{err}");
    assert!(
        !d.path().join("../out.manifest").exists(),
        "no partial output"
    );
}

#[test]
fn missing_path_exits_2() {
    pp().args(["manifest", "/nonexistent/path"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/nonexistent/path"));
}

fn json_record(d: &Path) -> tempfile::NamedTempFile {
    let m = tempfile::NamedTempFile::new().unwrap();
    pp().arg("manifest")
        .arg(d)
        .args(["--format", "json", "-o"])
        .arg(m.path())
        .assert()
        .success();
    m
}

fn check_json(d: &Path, m: &Path, extra: &[&str]) -> (i32, Value) {
    let out = pp()
        .arg("check")
        .arg(d)
        .arg("--manifest")
        .arg(m)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap(), v)
}

fn failed_ids(v: &Value) -> Vec<(String, String)> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == Value::Bool(false))
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn check_reports_every_kind_of_drift() {
    let d = sample_tree();
    let m = json_record(d.path());
    let (code, v) = check_json(d.path(), m.path(), &[]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["passed"], 6);

    fs::write(d.path().join("plain.txt"), b"HELLO\n").unwrap(); // same size, changed
    fs::write(d.path().join("colon:in:name"), b"longer content").unwrap(); // size mismatch
    fs::remove_file(d.path().join("empty")).unwrap(); // missing
    write(d.path(), "new/extra.txt", b"extra"); // unlisted
    symlink("/nonexistent", d.path().join("dangling")).unwrap(); // cannot be listed
    let (code, v) = check_json(d.path(), m.path(), &[]);
    assert_eq!(code, 1);
    let f = failed_ids(&v);
    let find = |id: &str| {
        f.iter()
            .find(|(i, _)| i == id)
            .map(|(_, d)| d.clone())
            .unwrap_or_else(|| panic!("{id} not failed in {f:?}"))
    };
    assert!(find("file:plain.txt").starts_with("changed"));
    assert!(find("file:colon:in:name").starts_with("size mismatch"));
    assert!(find("file:empty").starts_with("missing"));
    assert!(find("file:new/extra.txt").starts_with("unlisted"));
    assert!(find("file:dangling").contains("dangling symlink"));
    assert_eq!(f.len(), 5);
    assert_eq!(v["summary"]["passed"], 3);

    // Human output: only failures, one per line, and the summary on stderr.
    let out = pp()
        .arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let so = String::from_utf8(out.stdout).unwrap();
    assert_eq!(so.lines().count(), 5, "{so}");
    assert!(so.contains("plain.txt: FAILED (changed"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("check: FAILED, 5 of 8 paths"));
}

#[test]
fn check_verbose_lists_ok_lines() {
    let d = sample_tree();
    let m = json_record(d.path());
    let out = pp()
        .arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .arg("-v")
        .output()
        .unwrap();
    assert!(out.status.success());
    let so = String::from_utf8(out.stdout).unwrap();
    assert!(so.contains("plain.txt: OK\n"), "{so}");
    assert_eq!(so.lines().count(), 6);
}

#[test]
fn check_canonical_manifest_detects_change_without_sizes() {
    let d = sample_tree();
    let m = tempfile::NamedTempFile::new().unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(m.path())
        .assert()
        .success();
    fs::write(d.path().join("empty"), b"not empty any more").unwrap();
    let (code, v) = check_json(d.path(), m.path(), &[]);
    assert_eq!(code, 1);
    assert_eq!(failed_ids(&v)[0].0, "file:empty");
}

/// `--sizes-only` must not read file contents. A file replaced by a link to
/// `/proc/self/mem` (stat size 0, reads fail) passes a sizes-only check of a
/// 0-byte entry, while a full check fails to read it (exit 2).
#[test]
fn sizes_only_reads_no_contents() {
    let d = sample_tree();
    let m = json_record(d.path());
    fs::remove_file(d.path().join("empty")).unwrap();
    symlink("/proc/self/mem", d.path().join("empty")).unwrap();
    let (code, v) = check_json(d.path(), m.path(), &["--sizes-only"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["summary"]["passed"], 6);
    let (code, _) = check_json(d.path(), m.path(), &[]);
    assert_eq!(code, 2);
    // Sizes-only still catches a size change and missing/unlisted files.
    fs::write(d.path().join("plain.txt"), b"hello, longer\n").unwrap();
    write(d.path(), "added", b"x");
    let (code, v) = check_json(d.path(), m.path(), &["--sizes-only"]);
    assert_eq!(code, 1);
    let ids: Vec<_> = failed_ids(&v).into_iter().map(|(i, _)| i).collect();
    assert_eq!(ids, ["file:added", "file:plain.txt"]);
}

#[test]
fn sizes_only_needs_a_json_record() {
    let d = sample_tree();
    let m = tempfile::NamedTempFile::new().unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(m.path())
        .assert()
        .success();
    pp().arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .arg("--sizes-only")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("JSON record"));
}

#[test]
fn malformed_manifest_exits_2_naming_file_and_line() {
    let d = sample_tree();
    let m = tempfile::NamedTempFile::new().unwrap();
    fs::write(
        m.path(),
        "a:0000000000000000000000000000000000000000000000000000000000000000\nbroken line\n",
    )
    .unwrap();
    pp().arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(m.path().to_str().unwrap())
                .and(predicate::str::contains("line 2")),
        );
}

#[test]
fn upper_case_hex_in_a_person_written_manifest_is_accepted() {
    let d = sample_tree();
    let text = stdout_of(pp().arg("manifest").arg(d.path()));
    let upper: String = text
        .lines()
        .map(|l| {
            let (p, h) = l.rsplit_once(':').unwrap();
            format!("{p}:{}\n", h.to_uppercase())
        })
        .collect();
    let m = tempfile::NamedTempFile::new().unwrap();
    fs::write(m.path(), upper).unwrap();
    pp().arg("check")
        .arg(d.path())
        .arg("--manifest")
        .arg(m.path())
        .assert()
        .success();
}

#[test]
fn diff_lists_added_removed_changed_and_gates() {
    let d = sample_tree();
    let old = tempfile::NamedTempFile::new().unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(old.path())
        .assert()
        .success();
    pp().arg("diff")
        .arg(old.path())
        .arg(d.path())
        .assert()
        .success()
        .stdout("");

    fs::write(d.path().join("plain.txt"), b"changed\n").unwrap();
    fs::remove_file(d.path().join("colon:in:name")).unwrap();
    write(d.path(), "added/file", b"new");
    let out = pp()
        .arg("diff")
        .arg(old.path())
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let so = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        so,
        "added: added/file\nremoved: colon:in:name\nchanged: plain.txt\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 added, 1 removed, 1 changed, 4 unchanged")
    );

    let v = diff_json(old.path(), d.path());
    assert_eq!(v["ok"], false);
    assert_eq!(v["summary"]["failed"], 4); // digest + 3 paths
    let ids: Vec<_> = failed_ids(&v).into_iter().map(|(i, _)| i).collect();
    assert_eq!(
        ids,
        [
            "manifest.digest",
            "diff:added/file",
            "diff:colon:in:name",
            "diff:plain.txt"
        ]
    );

    // Both sides manifests, in different formats.
    let new_json = json_record(d.path());
    pp().arg("diff")
        .arg(old.path())
        .arg(new_json.path())
        .assert()
        .code(1);
    pp().arg("diff")
        .arg(new_json.path())
        .arg(d.path())
        .assert()
        .success();
}

#[test]
fn output_file_appears_whole_or_not_at_all() {
    let d = sample_tree();
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("m.txt");
    pp().arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(&target)
        .assert()
        .success();
    let first = fs::read(&target).unwrap();
    // A failing run leaves the previous file untouched and no temp files.
    symlink("/nonexistent", d.path().join("dangling")).unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .arg("-o")
        .arg(&target)
        .assert()
        .code(2);
    assert_eq!(fs::read(&target).unwrap(), first);
    assert_eq!(fs::read_dir(out_dir.path()).unwrap().count(), 1);
}

#[test]
fn threads_flag_does_not_change_the_result() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..200 {
        write(
            d.path(),
            &format!("f/{i:03}"),
            format!("content {i}").repeat(i).as_bytes(),
        );
    }
    let one = stdout_of(pp().arg("manifest").arg(d.path()).args(["--threads", "1"]));
    let four = stdout_of(pp().arg("manifest").arg(d.path()).args(["--threads", "4"]));
    assert_eq!(one, four);
    assert_eq!(one.lines().count(), 200);
}

/// Every drift line has the documented shape `<kind>: <path>`, whatever the
/// manifests record: against a JSON manifest (sizes recorded) a file that
/// changed size is still `changed: <path>` (the sizes are in the JSON).
#[test]
fn diff_lines_keep_one_shape_when_sizes_are_known() {
    let d = sample_tree();
    let old = tempfile::NamedTempFile::new().unwrap();
    pp().arg("manifest")
        .arg(d.path())
        .args(["--format", "json", "-o"])
        .arg(old.path())
        .assert()
        .success();
    fs::write(
        d.path().join("plain.txt"),
        b"a longer content than before\n",
    )
    .unwrap();
    let out = pp()
        .arg("diff")
        .arg(old.path())
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "changed: plain.txt\n"
    );
    let v = diff_json(old.path(), d.path());
    let c = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "diff:plain.txt")
        .unwrap()
        .clone();
    assert!(
        c["detail"].as_str().unwrap().starts_with("changed (size "),
        "{c}"
    );
}
