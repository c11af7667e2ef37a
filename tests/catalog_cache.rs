//! The hash cache: hits on unchanged trees, and the racy cases that must
//! never give a stale digest (rewrite in the same second with the same size,
//! change while hashing, timestamps restored by hand).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use predicates::str::contains;
use proofpack::catalog::{Catalog, RACY_MARGIN_NS};
use proofpack::manifest::{self, FileStat, HashCache};
use proofpack::progress::NoProgress;

/// Long enough for files written now to be cacheable (the racy margin).
fn settle() {
    std::thread::sleep(Duration::from_nanos(RACY_MARGIN_NS as u64) + Duration::from_millis(400));
}

/// `proofpack -v` (v1.1: the cache line is printed only with -v) with the
/// catalog at `catalog`, created first (v1.1: manifest, check and diff use
/// an existing catalog's cache and never create one).
fn bin(catalog: &Path) -> Command {
    if !catalog.exists() {
        Catalog::open(catalog).unwrap();
    }
    let mut c = common::proofpack();
    c.env("PROOFPACK_CATALOG", catalog).arg("-v");
    c
}

fn tree(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    fs::create_dir_all(root.join("a/b")).unwrap();
    for i in 0..n {
        let dir = if i % 2 == 0 { "a" } else { "a/b" };
        fs::write(
            root.join(format!("{dir}/f{i:03}")),
            format!("content of file {i:03}").repeat(50),
        )
        .unwrap();
    }
    let cat = d.path().join("catalog.db");
    (d, root, cat)
}

/// Runs `proofpack manifest root` and returns (stdout, stderr).
fn manifest(cat: &Path, root: &Path, extra: &[&str]) -> (String, String) {
    let out = bin(cat)
        .arg("manifest")
        .args(extra)
        .arg(root)
        .assert()
        .success();
    let o = out.get_output();
    (
        String::from_utf8(o.stdout.clone()).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    )
}

/// (hits, looked up, newly cached) from the "cache:" line on stderr.
fn cache_counts(stderr: &str) -> (u64, u64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("cache"))
        .unwrap_or_else(|| panic!("no cache line in {stderr}"));
    let rest = &line[line.find(": ").unwrap() + 2..];
    let nums: Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (nums[0], nums[1], nums[2])
}

/// Rewrites a file with different bytes of the same length, then puts its
/// mtime back to the exact old value: what a rewrite "in the same second"
/// looks like on a file system with one-second timestamps.
fn rewrite_same_size_same_mtime(p: &Path) -> fs::Metadata {
    let before = fs::metadata(p).unwrap();
    let mut content = fs::read(p).unwrap();
    content[0] ^= 0x20;
    fs::write(p, &content).unwrap();
    let f = fs::OpenOptions::new().write(true).open(p).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = fs::metadata(p).unwrap();
    assert_eq!(after.len(), before.len());
    assert_eq!(
        after.modified().unwrap(),
        before.modified().unwrap(),
        "mtime restored exactly"
    );
    after
}

#[test]
fn second_manifest_comes_from_the_cache_with_the_same_digest() {
    let (_d, root, cat) = tree(20);
    settle();
    let (m1, e1) = manifest(&cat, &root, &[]);
    assert_eq!(cache_counts(&e1), (0, 20, 20), "{e1}");
    let (m2, e2) = manifest(&cat, &root, &[]);
    assert_eq!(cache_counts(&e2), (20, 20, 0), "{e2}");
    assert_eq!(m1, m2);
    let (m3, e3) = manifest(&cat, &root, &["--no-cache"]);
    assert_eq!(m3, m1);
    assert!(!e3.contains("cache"), "{e3}");
    // The same digest on stderr's summary line every time.
    let digest = |e: &str| {
        e.lines()
            .find(|l| l.starts_with("manifest:"))
            .unwrap()
            .split(", ")
            .nth(2)
            .unwrap()
            .to_string()
    };
    assert_eq!(digest(&e1), digest(&e2));

    // A single file as the root is cached too.
    let one = root.join("a/f000");
    let (s1, _) = manifest(&cat, &one, &[]);
    let (s2, e) = manifest(&cat, &one, &[]);
    assert_eq!(s1, s2);
    assert_eq!(cache_counts(&e).0, 1, "{e}");

    // A moved tree is another set of paths: rehashed, same manifest.
    let moved = root.with_file_name("moved");
    fs::rename(&root, &moved).unwrap();
    let (m4, e4) = manifest(&cat, &moved, &[]);
    assert_eq!(m4, m1);
    assert_eq!(cache_counts(&e4).0, 0, "{e4}");
}

#[test]
fn rewrite_in_the_same_second_right_after_a_manifest_is_seen() {
    // No settling: the files are seconds old, as in a pipeline that writes
    // and immediately manifests. Nothing may be vouched for.
    let (_d, root, cat) = tree(6);
    let (m1, e1) = manifest(&cat, &root, &[]);
    let (_, _, stored) = cache_counts(&e1);
    assert_eq!(
        stored, 0,
        "files modified within the racy margin are not cached: {e1}"
    );
    rewrite_same_size_same_mtime(&root.join("a/f000"));
    let (m2, _) = manifest(&cat, &root, &[]);
    assert_ne!(m1, m2, "the rewrite must change the manifest");
    let (truth, _) = manifest(&cat, &root, &["--no-cache"]);
    assert_eq!(m2, truth);
}

#[test]
fn rewrite_of_a_cached_file_with_same_size_and_mtime_is_seen() {
    let (d, root, cat) = tree(6);
    settle();
    let (m1, e1) = manifest(&cat, &root, &["-o", d.path().join("m1").to_str().unwrap()]);
    assert_eq!(cache_counts(&e1), (0, 6, 6), "{e1}");
    let _ = m1;
    let m1 = fs::read_to_string(d.path().join("m1")).unwrap();
    // Same size, same mtime to the nanosecond; only the ctime (which no
    // one but the kernel can set) tells.
    let target = root.join("a/b/f001");
    let before = fs::metadata(&target).unwrap();
    let after = rewrite_same_size_same_mtime(&target);
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        (after.ino(), after.size(), after.mtime(), after.mtime_nsec()),
        (
            before.ino(),
            before.size(),
            before.mtime(),
            before.mtime_nsec()
        )
    );

    let (m2, e2) = manifest(&cat, &root, &[]);
    assert_eq!(
        cache_counts(&e2).0,
        5,
        "the rewritten file is hashed again: {e2}"
    );
    assert_ne!(m1, m2);
    let (truth, _) = manifest(&cat, &root, &["--no-cache"]);
    assert_eq!(m2, truth);
    // check with the cache sees it too.
    bin(&cat)
        .arg("check")
        .arg(&root)
        .arg("--manifest")
        .arg(d.path().join("m1"))
        .assert()
        .code(1)
        .stdout(contains("a/b/f001: FAILED (changed"));
}

#[test]
fn full_and_no_cache_do_not_read_the_cache() {
    let (d, root, cat) = tree(8);
    settle();
    let mfile = d.path().join("m");
    bin(&cat)
        .args(["manifest", "-o"])
        .arg(&mfile)
        .arg(&root)
        .assert()
        .success();
    let check = |extra: &[&str]| {
        bin(&cat)
            .arg("check")
            .arg(&root)
            .arg("--manifest")
            .arg(&mfile)
            .args(extra)
            .assert()
    };
    let out = check(&[]).success();
    assert_eq!(
        cache_counts(&String::from_utf8_lossy(&out.get_output().stderr)).0,
        8
    );
    let out = check(&["--full"]).success();
    assert_eq!(
        cache_counts(&String::from_utf8_lossy(&out.get_output().stderr)).0,
        0
    );

    // Poison every cache entry behind proofpack's back: a normal check
    // trusts the cache (it is the user's own file), --full and --no-cache
    // do not look at it.
    let conn = rusqlite::Connection::open(&cat).unwrap();
    let n = conn
        .execute("UPDATE hash_cache SET sha256 = zeroblob(32)", [])
        .unwrap();
    assert_eq!(n, 8);
    drop(conn);
    check(&[]).code(1);
    check(&["--no-cache"]).success();
    // --full rehashes and refreshes the cache, so the next check is right again.
    check(&["--full"]).success();
    check(&[]).success();
}

#[test]
fn change_while_hashing_is_not_cached() {
    let (_d, root, cat) = tree(2);
    settle();
    let c = Catalog::open(&cat).unwrap();
    let found = manifest::scan(&root, &[]).unwrap();
    let f = &found[0];

    // The file changes after it was found and before its post-hash stat.
    let session = c.hash_cache(&root, true).unwrap();
    rewrite_same_size_same_mtime(&f.abs);
    manifest::hash_found(f, Some(&session), &NoProgress).unwrap();
    let st = session.finish().unwrap();
    assert_eq!((st.changed, st.stored), (1, 0), "{st:?}");
    assert_eq!(c.cache_len().unwrap(), 0);

    // At the trait level: a post-hash stat that differs in any field is not
    // stored; an equal, settled one is, and is vouched for only while every
    // field still matches.
    // (The other file: the first one was just rewritten, so it is too recent.)
    let f = manifest::scan(&root, &[]).unwrap().remove(1);
    assert_ne!(f.rel, found[0].rel);
    let later = SystemTime::now() + Duration::from_secs(3600);
    let d = proofpack::digest::Sha256Digest::of_bytes(b"x");
    let session = c.hash_cache(&root, true).unwrap();
    for tweak in [
        |s: &mut FileStat| s.mtime_ns += 1,
        |s: &mut FileStat| s.ctime_ns += 1,
        |s: &mut FileStat| s.size += 1,
        |s: &mut FileStat| s.ino += 1,
        |s: &mut FileStat| s.dev += 1,
    ] {
        let mut other = f.stat;
        tweak(&mut other);
        // The descriptor's stat before reading, or after hashing, differs.
        session.store(&f, later, &other, &f.stat, d);
        session.store(&f, later, &f.stat, &other, d);
    }
    // Hashing that started right now: the file is settled (written > 3 s
    // ago) so this one is stored.
    session.store(&f, SystemTime::now(), &f.stat, &f.stat, d);
    let st = session.finish().unwrap();
    assert_eq!((st.changed, st.stored), (10, 1), "{st:?}");

    let session = c.hash_cache(&root, true).unwrap();
    assert_eq!(session.lookup(&f), Some(d));
    let mut other = f.clone();
    other.stat.ctime_ns += 1;
    assert_eq!(session.lookup(&other), None, "ctime differs");
    let mut other = f.clone();
    other.stat.ino ^= 1;
    assert_eq!(session.lookup(&other), None, "inode differs");
    let mut other = f.clone();
    other.rel = "elsewhere".into();
    assert_eq!(session.lookup(&other), None, "another path");
    // A session that only stores (check --full) never vouches.
    let store_only = c.hash_cache(&root, false).unwrap();
    assert_eq!(store_only.lookup(&f), None);

    // Hashing that started within the margin of the file's last change
    // is not stored.
    let fresh = root.join("fresh");
    fs::write(&fresh, b"new").unwrap();
    let ff = manifest::scan(&root, &[])
        .unwrap()
        .into_iter()
        .find(|x| x.rel == "fresh")
        .unwrap();
    let session = c.hash_cache(&root, true).unwrap();
    session.store(&ff, SystemTime::now(), &ff.stat, &ff.stat, d);
    let st = session.finish().unwrap();
    assert_eq!((st.too_recent, st.stored), (1, 0), "{st:?}");
}

/// `check` says when the hash cache answered: its summary names how many
/// digests came from the cache (files not read again), and `--full`, which
/// reads every file, says plain "contents".
#[test]
fn check_says_when_the_cache_answered() {
    let (d, root, cat) = tree(6);
    settle();
    let m = d.path().join("m.txt");
    // Its own `bin`: the catalog exists first, so the digests are cached.
    bin(&cat)
        .arg("manifest")
        .arg(&root)
        .arg("-o")
        .arg(&m)
        .assert()
        .success();
    let summary = |extra: &[&str]| -> String {
        let out = bin(&cat)
            .arg("check")
            .arg(&root)
            .arg("--manifest")
            .arg(&m)
            .args(extra)
            .assert()
            .success();
        let e = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        e.lines()
            .find(|l| l.starts_with("check:"))
            .unwrap()
            .to_string()
    };
    let cached = summary(&[]);
    assert!(
        cached.contains("contents; 6 of 6 digests from the catalog's hash cache"),
        "{cached}"
    );
    let full = summary(&["--full"]);
    assert!(full.contains("(contents, "), "{full}");
}
