//! Nothing left behind on SIGINT/SIGTERM, and one writer per output (issue
//! 10), through the binary:
//!
//! - `seal` interrupted while hashing and while archiving leaves exactly what
//!   was there before (no bundle, sidecar, seal, temporary or lock file);
//! - `unpack` interrupted mid-entry leaves the destination as it was; the
//!   bundle is fed through a FIFO so that the signal lands mid-stream
//!   deterministically;
//! - 50 rounds of two concurrent seals of different runs to one output
//!   always leave a triple (bundle, `.sha256`, seal) from one run, which
//!   verifies;
//! - an unsigned re-seal over a signed one refuses without `--force`, and
//!   removes the stale seal with it.

mod qualify_support;

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use qualify_support::*;

fn bin() -> PathBuf {
    qualify_support::common::bin()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(st.success());
}

fn wait_for(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A run directory with one large sparse file (reads as zeros, costs no
/// disk), so that sealing takes long enough to be interrupted.
fn big_run(dir: &Path) -> PathBuf {
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("small.json"), "{}\n").unwrap();
    let f = std::fs::File::create(run.join("big.bin")).unwrap();
    f.set_len(4 << 30).unwrap();
    run
}

fn interrupted_seal(sig: &str, during_archive: bool) {
    let d = tempfile::tempdir().unwrap();
    let run = big_run(d.path());
    let outdir = d.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    std::fs::write(outdir.join("unrelated.txt"), "was here before").unwrap();
    let before = names(&outdir);
    let child = Command::new(bin())
        .args(["--no-catalog", "seal"])
        .arg(&run)
        .arg("-o")
        .arg(outdir.join("b.tgz"))
        .args(["--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if during_archive {
        // The archive pass writes a temporary file beside the output.
        wait_for("the archive pass", Duration::from_secs(60), || {
            names(&outdir)
                .iter()
                .any(|n| n.starts_with(".proofpack-tmp-"))
        });
    } else {
        // The lock file appears as sealing starts; hashing 4 GiB takes
        // seconds, so the signal lands in the hashing pass.
        wait_for("the seal to start", Duration::from_secs(20), || {
            outdir.join("b.tgz.lock").exists()
        });
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !names(&outdir)
                .iter()
                .any(|n| n.starts_with(".proofpack-tmp-")),
            "still hashing"
        );
    }
    signal(&child, sig);
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "seal took long to stop"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(names(&outdir), before, "left behind after {sig}");
}

#[test]
fn seal_interrupted_by_sigint_while_hashing_leaves_nothing() {
    interrupted_seal("INT", false);
}

#[test]
fn seal_interrupted_by_sigterm_while_archiving_leaves_nothing() {
    interrupted_seal("TERM", true);
}

#[test]
fn seal_interrupted_by_sigint_while_archiving_leaves_nothing() {
    interrupted_seal("INT", true);
}

/// Seals the sample with a big extra file, then feeds the bundle to
/// `unpack` through a FIFO in two parts, signalling in between.
fn interrupted_unpack(sig: &str) {
    let c = fresh();
    // 8 MiB of incompressible data: several read chunks inside one entry.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut data = Vec::with_capacity(8 << 20);
    while data.len() < 8 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(c.path("inputs/zz-blob.bin"), &data).unwrap();
    c.seal();
    let bundle = std::fs::read(c.bundle_path()).unwrap();
    let fifo = c.dir.path().join("feed.tgz");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let dest = c.dir.path().join("dest");
    std::fs::create_dir(&dest).unwrap();
    std::fs::write(dest.join("mine.txt"), "was here before").unwrap();
    let before = names(&dest);
    let child = Command::new(bin())
        .args(["--no-catalog", "unpack"])
        .arg(&fifo)
        .arg("-C")
        .arg(&dest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let half = bundle.len() / 2;
    w.write_all(&bundle[..half]).unwrap();
    // unpack is now mid-stream (blocked on the FIFO, its tree partly written).
    wait_for(
        "unpack to write its temporary tree",
        Duration::from_secs(20),
        || {
            names(&dest)
                .iter()
                .any(|n| n.starts_with(".proofpack-unpack-"))
        },
    );
    std::thread::sleep(Duration::from_millis(100));
    signal(&child, sig);
    std::thread::sleep(Duration::from_millis(100));
    // More bytes wake it up; it notices the signal and stops.
    let _ = w.write_all(&bundle[half..]);
    drop(w);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(names(&dest), before, "left behind after {sig}");
}

#[test]
fn unpack_interrupted_by_sigint_leaves_nothing() {
    interrupted_unpack("INT");
}

#[test]
fn unpack_interrupted_by_sigterm_leaves_nothing() {
    interrupted_unpack("TERM");
}

#[test]
fn fifty_pairs_of_concurrent_seals_leave_one_verifiable_triple() {
    let a = fresh();
    let b = fresh();
    b.edit_json("qualification.json", |q| {
        q["name"] = serde_json::json!("other-run")
    });
    let keys = a.dir.path().join("keys");
    gen::write_keys(&keys, "release", &gen::release_key());
    let key = keys.join("release.key");
    let outdir = a.dir.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let out = outdir.join("b.tgz");
    let seal = |run: &Path| {
        Command::new(bin())
            .args(["--no-catalog", "seal"])
            .arg(run)
            .arg("-o")
            .arg(&out)
            .arg("--key")
            .arg(&key)
            .args(["--name", "r"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for round in 0..50 {
        let (p, q) = (seal(&a.run()), seal(&b.run()));
        for c in [p, q] {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let (code, stdout, stderr) = proofpack(&[
            OsStr::new("verify"),
            out.as_os_str(),
            OsStr::new("--structure-only"),
            OsStr::new("--require-seal"),
            OsStr::new("--trust"),
            a.trust().as_os_str(),
        ]);
        assert_eq!(code, 0, "round {round}: a mixed triple\n{stdout}\n{stderr}");
        assert_eq!(
            names(&outdir),
            ["b.tgz", "b.tgz.seal.dsse.json", "b.tgz.sha256"],
            "round {round}"
        );
    }
}

#[test]
fn unsigned_reseal_over_a_signed_one_refuses_or_removes_the_stale_seal() {
    let c = fresh();
    c.seal();
    let seal_file = format!("{}.seal.dsse.json", c.bundle_path().display());
    let before = std::fs::read(c.bundle_path()).unwrap();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["claims"]["completed_rate"] = serde_json::json!("0.427")
    });
    let (code, _, stderr) = proofpack(&[
        OsStr::new("seal"),
        c.run().as_os_str(),
        OsStr::new("-o"),
        c.bundle_path().as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--force") && stderr.contains("seal.dsse.json"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(c.bundle_path()).unwrap(),
        before,
        "nothing was replaced"
    );
    let (code, _, stderr) = proofpack(&[
        OsStr::new("seal"),
        c.run().as_os_str(),
        OsStr::new("-o"),
        c.bundle_path().as_os_str(),
        OsStr::new("--force"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!Path::new(&seal_file).exists());
    // The new bundle verifies: no stale seal beside it.
    let o = verify_with(
        &c.bundle_path(),
        &[
            OsStr::new("--structure-only"),
            OsStr::new("--trust"),
            c.trust().as_os_str(),
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stdout);
}
